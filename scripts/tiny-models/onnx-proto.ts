// The few messages of onnx.proto a small graph needs (ModelProto, GraphProto, NodeProto, TensorProto,
// ValueInfoProto, AttributeProto), written as protobuf wire format, so the test models are made with
// no Python and no protobuf package. Field numbers are onnx.proto's.

/** Protobuf wire-format writer: varints and length-delimited fields, nothing else is needed here. */
class Writer {
  readonly #parts: Uint8Array[] = [];
  #length = 0;

  #push(bytes: Uint8Array): void {
    this.#parts.push(bytes);
    this.#length += bytes.length;
  }

  #varint(value: bigint): void {
    const out: number[] = [];
    let v = BigInt.asUintN(64, value);
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      out.push(byte);
    } while (v !== 0n);
    this.#push(Uint8Array.from(out));
  }

  int(field: number, value: number | bigint): this {
    this.#varint(BigInt((field << 3) | 0));
    this.#varint(BigInt(value));
    return this;
  }

  float(field: number, value: number): this {
    this.#varint(BigInt((field << 3) | 5));
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.#push(bytes);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.#varint(BigInt((field << 3) | 2));
    this.#varint(BigInt(value.length));
    this.#push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, value: Writer): this {
    return this.bytes(field, value.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const part of this.#parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}

/** onnx TensorProto.DataType */
export const FLOAT = 1;
export const INT64 = 7;

export type Attribute = { name: string } & ({ i: number } | { f: number } | { ints: number[] });
export interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Attribute[];
}
export interface Tensor {
  name: string;
  dims: number[];
  /** FLOAT data as a Float32Array, INT64 as a BigInt64Array. */
  data: Float32Array | BigInt64Array;
}
/** A graph input or output: dims are numbers or symbolic names ("batch", "sequence"). */
export interface ValueInfo {
  name: string;
  type: typeof FLOAT | typeof INT64;
  dims: Array<number | string>;
}
export interface Graph {
  name: string;
  nodes: Node[];
  initializers: Tensor[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
}

function attribute(a: Attribute): Writer {
  const w = new Writer().string(1, a.name);
  if ('i' in a) return w.int(3, a.i).int(20, 2);
  if ('f' in a) return w.float(2, a.f).int(20, 1);
  for (const v of a.ints) w.int(8, v);
  return w.int(20, 7);
}

function tensor(t: Tensor): Writer {
  const w = new Writer();
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.data instanceof Float32Array ? FLOAT : INT64).string(8, t.name);
  // raw_data is little-endian, which typed arrays are on every platform Node runs on.
  return w.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
}

function valueInfo(v: ValueInfo): Writer {
  const shape = new Writer();
  for (const d of v.dims) shape.message(1, typeof d === 'number' ? new Writer().int(1, d) : new Writer().string(2, d));
  const tensorType = new Writer().int(1, v.type).message(2, shape);
  return new Writer().string(1, v.name).message(2, new Writer().message(1, tensorType));
}

/** The bytes of an ONNX model file holding `graph`, for opset `opset` of the default domain. */
export function encodeModel(graph: Graph, opset = 17): Uint8Array {
  const g = new Writer();
  graph.nodes.forEach((n, i) => {
    const node = new Writer();
    for (const input of n.inputs) node.string(1, input);
    for (const output of n.outputs) node.string(2, output);
    node.string(3, `${n.op.toLowerCase()}_${i}`).string(4, n.op);
    for (const a of n.attributes ?? []) node.message(5, attribute(a));
    g.message(1, node);
  });
  g.string(2, graph.name);
  for (const t of graph.initializers) g.message(5, tensor(t));
  for (const v of graph.inputs) g.message(11, valueInfo(v));
  for (const v of graph.outputs) g.message(12, valueInfo(v));
  return new Writer()
    .int(1, 8) // ir_version 8 (ONNX 1.10+)
    .string(2, 'corpus-mcp tiny-models')
    .message(7, g)
    .message(8, new Writer().string(1, '').int(2, opset))
    .finish();
}
