/** The part of Hypercore 11's API the peer benchmark uses (the package ships no types). */
declare module 'hypercore' {
  export default class Hypercore {
    constructor(storage: string);
    readonly length: number;
    ready(): Promise<void>;
    /** Appends the blocks in one batch; resolves once they are stored. */
    append(blocks: Buffer | readonly Buffer[]): Promise<{ length: number; byteLength: number }>;
    close(): Promise<void>;
  }
}
