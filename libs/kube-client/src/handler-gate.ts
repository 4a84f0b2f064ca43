// Informers are shared and outlive the controllers that listen to them (a handler cannot be removed): a handler
// wrapped by the gate of its controller acts only while that controller runs, so a stopped controller's queue is
// never fed again.

/** `const live = handlersWhile(() => this.running); informer.on('add', live((obj) => ...))`. */
export function handlersWhile(isOn: () => boolean) {
  return <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A): void => {
      if (isOn()) fn(...args);
    };
}
