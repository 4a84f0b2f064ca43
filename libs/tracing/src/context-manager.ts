import { context, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';

/**
 * The active OpenTelemetry context carried across awaits with AsyncLocalStorage (the package that usually does this,
 * @opentelemetry/context-async-hooks, is not installed here; this is the small part of it we need).
 */
class AsyncLocalStorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target === 'function') {
      const fn = target as (...args: unknown[]) => unknown;
      const storage = this.storage;
      return function (this: unknown, ...args: unknown[]) {
        return storage.run(ctx, () => fn.apply(this, args));
      } as T;
    }
    if (target instanceof EventEmitter) return target;
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}

let installed = false;

/** Installs the context manager once per process; later calls (and other installers) are left alone. */
export function ensureContextManager(): void {
  if (installed) return;
  installed = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
}
