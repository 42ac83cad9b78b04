#!/usr/bin/env python3
"""Decodes IPC frames with v8serialize, an independent decoder of the V8
serialization format (PyPI), and prints a projection of the canonical tree
of harness/oracle/canonical.js: the fields a decoder knows from bytes alone.

stdin: a JSON array of frames as hex; stdout: a JSON array of
{"ok": true, "tree": ...} or {"ok": false, "error": "..."}.
Exit 2 when v8serialize is not installed.
"""
import json
import math
import sys
from datetime import datetime, timezone

try:
    from v8serialize import loads
    from v8serialize.constants import SerializationTag
    from v8serialize.decode import TagReader
    from v8serialize.jstypes import (JSArray, JSArrayBuffer, JSBigInt, JSDataView, JSError, JSMap,
                                     JSObject, JSPrimitiveObject, JSRegExp, JSSet, JSTypedArray,
                                     JSUndefined)
except ImportError:
    print("v8serialize is not installed (pip install v8serialize)", file=sys.stderr)
    sys.exit(2)

VIEW_KINDS = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
              "Uint32Array", "Float32Array", "Float64Array", "DataView", "Uint8Array", "BigInt64Array",
              "BigUint64Array", "Float16Array"]
VIEW_WIDTHS = [1, 1, 1, 2, 2, 4, 4, 4, 8, 1, 1, 8, 8, 2]


class HostView:
    """A view the IPC codec wrote as host object tag 0."""
    def __init__(self, index, data):
        width = VIEW_WIDTHS[index]
        self.kind = VIEW_KINDS[index]
        self.length = None if self.kind == "DataView" else len(data) // width
        self.data = data if self.length is None else data[:self.length * width]


class IpcTagReader(TagReader):
    """V8's format plus Node's IPC host objects: tag 0 a view, tag 1 a copied object."""
    def register_tag_readers(self, tag_readers):
        super().register_tag_readers(tag_readers)
        tag_readers.register(SerializationTag.kHostObject, IpcTagReader.deserialize_host_object)

    def deserialize_host_object(self, tag, ctx):
        stream = ctx.stream
        host_id = stream.objects.record_reference(None)  # V8 numbers the host object first
        host_tag = stream.read_varint()
        if host_tag == 0:
            index = stream.read_varint()
            length = stream.read_varint()
            data = bytes(stream.read_bytes(length))
            if index >= len(VIEW_KINDS):
                stream.throw(f"view type index {index}")
            value = HostView(index, data)
        elif host_tag == 1:
            value = ctx.decode_object()
        else:
            stream.throw(f"IPC host tag {host_tag}")
        # v8serialize can only replace its latest id; the host object's is older.
        stream.objects._object_by_serialized_id[host_id] = value
        return value


def js_number(x):
    """Number::toString: Python's repr has the same shortest digits."""
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    mantissa, _, exponent = f"{x:.17e}".partition("e")
    for digits in range(1, 18):
        text = f"{x:.{digits - 1}e}"
        if float(text) == x:
            mantissa, _, exponent = text.partition("e")
            break
    digits = mantissa.replace(".", "")
    k, n = len(digits), int(exponent) + 1
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    e = n - 1
    sign = "-" if e < 0 else "+"
    return (digits if k == 1 else digits[0] + "." + digits[1:]) + f"e{sign}{abs(e)}"


def number(x):
    if isinstance(x, float) and x == 0 and math.copysign(1, x) < 0:
        return "-0"
    return js_number(float(x))


def key(k):
    return js_number(float(k)) if isinstance(k, (int, float)) else k


def canonical(value):
    seen = {}

    def visit(v):
        if v is JSUndefined:
            return {"t": "undefined"}
        if v is None:
            return {"t": "null"}
        if isinstance(v, bool):
            return {"t": "boolean", "v": v}
        if isinstance(v, JSBigInt):
            return {"t": "bigint", "v": str(int(v))}
        if isinstance(v, (int, float)):
            return {"t": "number", "v": number(v)}
        if isinstance(v, str):
            return {"t": "string", "v": v}
        if id(v) in seen:
            return {"t": "ref", "id": seen[id(v)]}
        node = {"id": len(seen)}
        seen[id(v)] = node["id"]
        if isinstance(v, HostView) or isinstance(v, (JSTypedArray, JSDataView)):
            if isinstance(v, HostView):
                kind, length, data = v.kind, v.length, v.data
            else:
                kind = "DataView" if isinstance(v, JSDataView) else type(v).__name__[2:]
                data = bytes(v.get_buffer_as_memoryview())
                length = None if kind == "DataView" else len(data) // v.data_format.itemsize
            node.update(t="view", kind=kind, byteLength=len(data), bytes=data.hex())
            if length is not None:
                node["length"] = length
        elif isinstance(v, JSArrayBuffer):
            data = bytes(v.data)
            node.update(t="arraybuffer", byteLength=len(data), bytes=data.hex())
        elif isinstance(v, JSArray):
            node.update(t="array", length=len(v.array), props=[[key(k), visit(x)] for k, x in v.items()])
        elif isinstance(v, JSMap):
            node.update(t="map", entries=[[visit(k), visit(x)] for k, x in v.items()])
        elif isinstance(v, JSSet):
            node.update(t="set", values=[visit(x) for x in v])
        elif isinstance(v, datetime):
            epoch = datetime(1970, 1, 1, tzinfo=v.tzinfo or None)
            node.update(t="date", v=number((v - epoch).total_seconds() * 1000))
        elif isinstance(v, JSRegExp):
            node.update(t="regexp", source=v.source or "(?:)", flags=str(v.flags))
        elif isinstance(v, JSPrimitiveObject):
            node.update(t="boxed", v=visit(v.value))
        elif isinstance(v, JSError):
            name = getattr(v.name, "value", v.name)
            node.update(t="error", name="URIError" if name == "UriError" else name, message=v.message or "")
            if v.cause is not None:  # v8serialize has None for both no cause and a null one
                node["cause"] = visit(v.cause)
        elif isinstance(v, JSObject):
            node.update(t="object", props=[[key(k), visit(x)] for k, x in v.items()])
        else:
            raise TypeError(f"no canonical form for {type(v).__name__}")
        return node

    return visit(value)


def decode(frame_hex):
    frame = bytes.fromhex(frame_hex)
    payload = frame[4:4 + int.from_bytes(frame[:4], "big")]
    try:
        value = loads(payload, decode_steps=[IpcTagReader(js_primitive_objects=True,
                                                          default_timezone=timezone.utc)])
        return {"ok": True, "tree": canonical(value)}
    except Exception as err:  # noqa: BLE001 - any decoder failure is a verdict
        return {"ok": False, "error": f"{type(err).__name__}: {str(err)[:200]}"}


if __name__ == "__main__":
    print(json.dumps([decode(frame) for frame in json.load(sys.stdin)]))
