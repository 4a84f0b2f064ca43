// apimachinery's label key and value checks with their exact messages (node labels and taints use them).

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

// RegexError's wording, including its two spaces before "or".
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  let s = msg + ' (';
  if (examples.length > 0) {
    s += 'e.g. ' + examples.map((e) => `'${e}'`).join(',  or ') + ', ';
  }
  return s + `regex used for validation is '${fmt}')`;
}

/** IsQualifiedName: `[prefix/]name`. Returns every problem, empty when valid. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else {
      for (const e of isDNS1123Subdomain(prefix)) errs.push('prefix part ' + e);
    }
  } else {
    return [
      'a qualified name ' +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          QUALIFIED_NAME_FMT,
          'MyName',
          'my.name',
          '123-abc',
        ) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME.test(name)) {
    errs.push(
      'name part ' +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          QUALIFIED_NAME_FMT,
          'MyName',
          'my.name',
          '123-abc',
        ),
    );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}
