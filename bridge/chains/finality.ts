/** When a deposit, or one of the bridge's own transactions, counts as final: the node's `finalized`/`safe` tag, or a confirmation count. */
export type Finality = { tag: 'finalized' | 'safe' } | { confirmations: number }

export function describeFinality(f: Finality): string {
    return 'tag' in f ? f.tag : `${f.confirmations} confirmation${f.confirmations === 1 ? '' : 's'}`
}
