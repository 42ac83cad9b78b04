/* Node-API binding of the model: decodeFrame(bytes) -> verdict object. */
#define NAPI_VERSION 8
#include <node_api.h>

#include "model.h"

#define CHECK(call) do { if ((call) != napi_ok) return NULL; } while (0)

static napi_value set_number(napi_env env, napi_value object, const char *key, double value) {
  napi_value v;
  CHECK(napi_create_double(env, value, &v));
  CHECK(napi_set_named_property(env, object, key, v));
  return object;
}

static napi_value set_string(napi_env env, napi_value object, const char *key, const char *value) {
  napi_value v;
  CHECK(napi_create_string_utf8(env, value, NAPI_AUTO_LENGTH, &v));
  CHECK(napi_set_named_property(env, object, key, v));
  return object;
}

/* decodeFrame(Uint8Array) -> { ok, reason, detail, offset, frameEnd, valueEnd,
 * trailing, version, json }: json is the canonical tree when ok. */
static napi_value decode_frame(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result, ok;
  napi_typedarray_type type;
  size_t length, offset;
  void *data;
  napi_value buffer;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_typedarray_info(env, argv[0], &type, &length, &data, &buffer, &offset) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "decodeFrame expects a Uint8Array");
    return NULL;
  }
  ipcfuzz_result r;
  ipcfuzz_decode_frame(data, length, &r, NULL, NULL);
  CHECK(napi_create_object(env, &result));
  CHECK(napi_get_boolean(env, r.ok, &ok));
  CHECK(napi_set_named_property(env, result, "ok", ok));
  set_number(env, result, "frameEnd", (double)r.frame_end);
  set_number(env, result, "version", r.version);
  if (r.ok) {
    set_number(env, result, "valueEnd", (double)r.value_end);
    set_number(env, result, "trailing", (double)r.trailing);
    set_string(env, result, "json", r.json);
  } else {
    set_string(env, result, "reason", r.reason);
    set_string(env, result, "detail", r.detail);
    set_number(env, result, "offset", (double)r.offset);
  }
  ipcfuzz_result_free(&r);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  CHECK(napi_create_function(env, "decodeFrame", NAPI_AUTO_LENGTH, decode_frame, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "decodeFrame", fn));
  return exports;
}
