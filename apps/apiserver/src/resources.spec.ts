import { openApiV2Form } from './resources';

// kube-openapi's choice for /openapi/v2: the first clause by quality that a served type matches.
test.each([
  // What client-go asks for, answered under the name Go's mime parser reads.
  ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'],
  ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'],
  ['application/json', 'application/json'],
  ['*/*', 'application/json'],
  ['application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'],
  ['application/vnd.kubernetes.protobuf', null],
  ['text/html', null],
])('Accept %s is answered as %s', (accept, want) => {
  expect(openApiV2Form(accept)).toBe(want);
});
