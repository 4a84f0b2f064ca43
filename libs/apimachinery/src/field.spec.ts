import { FieldPath, fieldErrors, ValidationError } from './field';

describe('field errors print as apimachinery does', () => {
  const jwt0 = FieldPath.root('jwt').index(0);
  test.each([
    [fieldErrors.invalid(jwt0.child('issuer', 'url'), 'http://x', 'URL scheme must be https'), 'jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https'],
    [fieldErrors.required(jwt0.child('issuer', 'audiences'), 'at least one jwt.issuer.audiences is required'), 'jwt[0].issuer.audiences: Required value: at least one jwt.issuer.audiences is required'],
    [fieldErrors.duplicate(FieldPath.root('jwt').index(1).child('issuer', 'url'), 'https://x'), 'jwt[1].issuer.url: Duplicate value: "https://x"'],
    [fieldErrors.notSupported(jwt0.child('issuer', 'audienceMatchPolicy'), 'MatchSome', ['MatchAny']), 'jwt[0].issuer.audienceMatchPolicy: Unsupported value: "MatchSome": supported values: "MatchAny"'],
    [fieldErrors.tooMany(FieldPath.root('matchConditions'), 65, 64), 'matchConditions: Too many: 65: must have at most 64 items'],
    [fieldErrors.invalid(FieldPath.root('spec').key('a.b'), 3, 'must be positive'), 'spec[a.b]: Invalid value: 3: must be positive'],
  ])('%#', (err, text) => expect(err.message).toBe(text));

  test('an aggregate lists every error on its own line', () => {
    const e = new ValidationError([fieldErrors.required('a'), fieldErrors.required('b')]);
    expect(e.message).toBe('a: Required value\nb: Required value');
  });
});
