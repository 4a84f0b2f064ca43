#!/usr/bin/env node
// Writes proto/cri-subset.json, the protobufjs JSON form of proto/cri-subset.proto that the client loads
// (parsing the .proto at every start was most of the client's start-up cost). Run after editing the .proto:
//   node libs/cri/tools/proto-json.js
// libs/cri/test/proto-json.spec.ts fails while the two disagree.
const fs = require('node:fs');
const path = require('node:path');
const protobuf = require('protobufjs');

const PROTO = path.join(__dirname, '..', 'proto', 'cri-subset.proto');
const JSON_FILE = path.join(__dirname, '..', 'proto', 'cri-subset.json');

/** The JSON text for the .proto: field names in lowerCamelCase, as the client has always seen them. */
function protoJson() {
  const root = new protobuf.Root().loadSync(PROTO, { keepCase: false });
  return JSON.stringify(root.toJSON(), null, 1) + '\n';
}

module.exports = { protoJson, JSON_FILE };

if (require.main === module) {
  fs.writeFileSync(JSON_FILE, protoJson());
  process.stdout.write(`wrote ${path.relative(process.cwd(), JSON_FILE)}\n`);
}
