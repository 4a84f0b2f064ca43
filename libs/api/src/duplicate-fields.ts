// JSON.parse keeps the last of two equal keys and says nothing; Go's strict decoder reports the duplicate. This
// scans text that JSON.parse already accepted and returns the path of every key that repeats within its object
// (`metadata.name`, `spec.containers[0].image`). It keeps its own stack of open objects and arrays instead of
// recursing, so a body nested as deep as the decoder allows cannot overflow the call stack here.

interface OpenObject {
  kind: 'object';
  path: string;
  seen: Set<string>;
}
interface OpenArray {
  kind: 'array';
  path: string;
  index: number;
}

export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  const open: Array<OpenObject | OpenArray> = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const str = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  // Scans one value at `path`; an object or array is left open on the stack for the loop below to continue.
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      open.push({ kind: 'object', path, seen: new Set() });
    } else if (c === '[') {
      i++;
      open.push({ kind: 'array', path, index: 0 });
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !',}] \n\r\t'.includes(text[i])) i++; // number, true, false, null
    }
  };
  // The next member of the innermost open object: its key, then its value.
  const member = (o: OpenObject) => {
    ws();
    const key = str();
    const child = o.path ? `${o.path}.${key}` : key;
    if (o.seen.has(key)) found.push(child);
    o.seen.add(key);
    ws();
    i++; // colon
    value(child);
  };

  value('');
  // After a value inside an open container: a `,` goes on to its next member, a `}` or `]` closes it.
  let justOpened = open.length > 0;
  while (open.length > 0) {
    const top = open[open.length - 1];
    ws();
    if (justOpened) {
      justOpened = false;
      if (text[i] === '}' || text[i] === ']') {
        i++;
        open.pop();
        continue;
      }
    } else if (text[i++] !== ',') {
      open.pop(); // `}` or `]`
      continue;
    }
    const depth = open.length;
    if (top.kind === 'object') member(top);
    else value(`${top.path}[${top.index++}]`);
    justOpened = open.length > depth;
  }
  return found;
}
