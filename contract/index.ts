/**
 * What the subgraph (src/) and the emulator (emulator/) must agree on about
 * the vendor's dashboard query: its names, windows and limits. Both programs
 * import it; it imports neither. test/contract/agreement.test.ts checks that
 * both validations accept and refuse the same bodies.
 */
export * from './names';
export * from './windows';
export * from './limits';
