// proto/cri-subset.json is what the client loads; it must say what proto/cri-subset.proto says.
import * as fs from 'node:fs';
const { protoJson, JSON_FILE } = require('../tools/proto-json.js') as { protoJson: () => string; JSON_FILE: string };

describe('proto/cri-subset.json', () => {
  it('is the JSON form of proto/cri-subset.proto (regenerate with node libs/cri/tools/proto-json.js)', () => {
    expect(JSON.parse(fs.readFileSync(JSON_FILE, 'utf8'))).toEqual(JSON.parse(protoJson()));
  });
});
