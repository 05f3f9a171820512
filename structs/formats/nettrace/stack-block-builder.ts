// Builds a StackBlock (ep-block.c): the id of its first stack, the count, then each stack as a
// byte size and that many bytes of instruction pointers (8 bytes each in a 64-bit trace, leaf
// first). Stacks get consecutive ids in stream order.

import { ByteWriter } from './byte-writer.js';
import { MAX_BLOCK_BYTES } from './constants.js';

export const STACK_BLOCK_HEADER_BYTES = 8;

export class StackBlockBuilder {
  private readonly body: ByteWriter;
  private readonly maxBody: number;
  private firstId = 0;
  private stacks = 0;

  constructor(maxBody = MAX_BLOCK_BYTES) {
    this.maxBody = maxBody;
    this.body = new ByteWriter(maxBody + 256);
  }

  get count(): number {
    return this.stacks;
  }

  /** Whether a stack of `frameCount` frames still fits (an empty block takes any size). */
  fits(frameCount: number): boolean {
    return this.stacks === 0 || this.body.length + 4 + 8 * frameCount < this.maxBody;
  }

  /** Appends the stack with the given id; ids in one block must be consecutive. */
  add(id: number, addresses: ArrayLike<number>): void {
    if (this.stacks === 0) this.firstId = id;
    else if (id !== this.firstId + this.stacks) throw new RangeError(`Stack ${id} does not follow stack ${this.firstId + this.stacks - 1} in its block.`);
    this.body.u32(8 * addresses.length);
    for (let i = 0; i < addresses.length; i++) this.body.u64(addresses[i]);
    this.stacks++;
  }

  get contentLength(): number {
    return STACK_BLOCK_HEADER_BYTES + this.body.length;
  }

  writeContent(out: ByteWriter): void {
    out.u32(this.firstId);
    out.u32(this.stacks);
    out.append(this.body.bytes());
  }

  reset(): void {
    this.body.clear();
    this.firstId = 0;
    this.stacks = 0;
  }
}
