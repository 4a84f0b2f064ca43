// glibc's malloc_trim for Node, on Node-API (ABI-stable: one build serves every Node of this major line on).
//
// Why: glibc keeps memory that was freed in its main arena's heap instead of returning it to the kernel, so a
// process's RSS stays near its high-water mark after a burst (1,000 TLS connections closed: malloc's in-use bytes
// fall 85 -> 8 MB, RSS does not). Node never calls malloc_trim; malloc_trim(0) gives the free pages back (madvise)
// in a few milliseconds. Elsewhere (musl, macOS, Windows) there is no malloc_trim: the addon says so and does nothing.
#include <stdlib.h> /* defines __GLIBC__ on glibc */
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#define HAVE_MALLOC_TRIM 1
#else
#define HAVE_MALLOC_TRIM 0
#endif

// trimMalloc(): true when malloc_trim(0) gave memory back to the kernel; false when there was none to give or
// when this libc has no malloc_trim (see `hasMallocTrim`).
static napi_value TrimMalloc(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#if HAVE_MALLOC_TRIM
  released = malloc_trim(0);
#endif
  napi_value result;
  if (napi_get_boolean(env, released == 1, &result) != napi_ok) return NULL;
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn, has;
  if (napi_create_function(env, "trimMalloc", NAPI_AUTO_LENGTH, TrimMalloc, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trimMalloc", fn) != napi_ok) return NULL;
  if (napi_get_boolean(env, HAVE_MALLOC_TRIM, &has) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "hasMallocTrim", has) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
