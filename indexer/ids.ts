/** Row ids that sort in chain order: zero-padded block number and position. */
export function logId(blockNumber: number, logIndex: number): string {
    return `${String(blockNumber).padStart(10, '0')}-${String(logIndex).padStart(6, '0')}`
}

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
