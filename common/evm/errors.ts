/** viem's errors carry the node's message in `details`; one string to classify them by. */
export function errorText(err: unknown): string {
    const e = err as { details?: string; shortMessage?: string; message?: string }
    return [e?.details, e?.shortMessage, e?.message].filter(Boolean).join(' | ')
}

/**
 * A node's answer that it holds no state for the block asked (pruned history, or blocks from
 * before a restart from a state file), as opposed to a transient failure. geth: "missing trie
 * node", "historical state … is not available"; erigon: "state histories … not …"; nethermind:
 * "… pruned …"; anvil: "BlockOutOfRangeError".
 */
const NO_STATE = /BlockOutOfRange|missing trie node|historical state|state (is )?not available|state histor|pruned/i

export function isNoStateError(err: unknown): boolean {
    return NO_STATE.test(errorText(err))
}
