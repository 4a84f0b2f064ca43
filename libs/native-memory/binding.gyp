# The addon of @cl/native-memory: one C file on Node-API, so it builds against any Node >= 20 with no npm
# dependency (node-gyp ships with npm). `npm install` runs `node-gyp rebuild` (package.json's install script).
{
  "targets": [
    {
      "target_name": "native_memory",
      "sources": ["native/native_memory.c"]
    }
  ]
}
