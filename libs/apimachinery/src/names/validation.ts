// The string checks of k8s.io/apimachinery/pkg/util/validation (Kubernetes 1.33) and the name functions of
// pkg/api/validation/generic.go. Each check returns the list of upstream messages (empty when the value is valid)
// so callers can wrap every message in a field error exactly as the API server does.

// Upstream measures lengths with Go's len(), i.e. in UTF-8 bytes, not characters.
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Go compares strings byte by byte (UTF-8), which is how upstream sorts keys and values. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

/** Upstream's RegexError; its examples keep the odd `', ' + ' or '` spacing users see in real messages. */
export function regexError(msg: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${pattern}')`;
  const listed = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${listed}regex used for validation is '${pattern}')`;
}

function anchored(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

const QNAME_CHAR = '[A-Za-z0-9]';
const QNAME_EXT_CHAR = '[-A-Za-z0-9_.]';
const QUALIFIED_NAME_FMT = `(${QNAME_CHAR}${QNAME_EXT_CHAR}*)?${QNAME_CHAR}`;
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX = 63;
const QUALIFIED_NAME_RE = anchored(QUALIFIED_NAME_FMT);

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;
const LABEL_VALUE_RE = anchored(LABEL_VALUE_FMT);

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;
const DNS1123_LABEL_RE = anchored(DNS1123_LABEL_FMT);

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const DNS1123_SUBDOMAIN_RE = anchored(DNS1123_SUBDOMAIN_FMT);

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
export const DNS1035_LABEL_MAX_LENGTH = 63;
const DNS1035_LABEL_RE = anchored(DNS1035_LABEL_FMT);

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_MAP_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const CONFIG_MAP_KEY_RE = anchored(CONFIG_MAP_KEY_FMT);

/** `[prefix/]name`: an optional DNS subdomain prefix and a name of at most 63 characters (label keys, finalizers). */
export function isQualifiedName(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      'a qualified name ' +
        regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  const errs = parts.length === 2 ? prefixErrors(parts[0]) : [];
  return errs.concat(namePartErrors(parts[parts.length - 1]));
}

function prefixErrors(prefix: string): string[] {
  if (prefix.length === 0) return [`prefix part ${emptyError()}`];
  return isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`);
}

function namePartErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (utf8Length(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  // Upstream reports the pattern even after "must be non-empty": an empty name fails the regex too.
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL_RE.test(value)) {
    // A valid subdomain that is not a valid label (length was checked above) can only be failing on its dots,
    // so upstream says just that instead of the whole pattern.
    errs.push(
      DNS1123_SUBDOMAIN_RE.test(value)
        ? 'must not contain dots'
        : regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'),
    );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL_RE.test(value)) errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** A key of a ConfigMap's or Secret's data: also used as a file name when mounted, hence the `.`/`..` rules. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!CONFIG_MAP_KEY_RE.test(value)) errs.push(regexError(CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  return errs.concat(chDirPrefixErrors(value));
}

function chDirPrefixErrors(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

/**
 * Checks a resource's name; `prefix` is true for metadata.generateName, whose value gets a random suffix appended
 * (upstream's ValidateNameFunc).
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * A generateName may end in '-' because the random suffix follows it. Upstream masks the end before checking; it
 * drops the last two characters (not one) and appends 'a', and we keep that so lengths are judged the same way.
 */
export function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return name.slice(0, name.length - 2) + 'a';
  return name;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Namespace names are DNS-1123 labels. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;

/**
 * Whether `name` can be one segment of a resource path (upstream's IsValidPathSegmentName): `.` and `..` would
 * address another object once a path is resolved, and `/` or `%` would make it more than one segment.
 */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const c of ['/', '%']) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}
