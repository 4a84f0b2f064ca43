// JSON.parse keeps the last of two equal keys and says nothing; Go's strict decoder reports the duplicate. This
// scans text that JSON.parse already accepted and returns the path of every key that repeats within its object
// (`metadata.name`, `spec.containers[0].image`).

export function duplicateFields(text: string): string[] {
  const found: string[] = [];
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
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        const child = path ? `${path}.${key}` : key;
        if (seen.has(key)) found.push(child);
        seen.add(key);
        ws();
        i++; // colon
        value(child);
        ws();
        if (text[i++] === '}') return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    }
    if (c === '"') {
      str();
      return;
    }
    while (i < text.length && !',}] \n\r\t'.includes(text[i])) i++; // number, true, false, null
  };
  value('');
  return found;
}
