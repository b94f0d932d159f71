/** What the durable sender needs of a network (docs/sending.md); the bridge's chain adapters and the platform's EVM chain provide it. */

/** When a mined transaction counts as settled: at or below the node's finalized/safe tag, or with this many confirmations. */
export type Finality = { tag: 'finalized' | 'safe' } | { confirmations: number }

/** A signed transaction, ready to broadcast any number of times. */
export interface SignedTx {
    from: string
    hash: string
    raw: string
    /** Account sequence where the chain has one (EVM nonce); null for UTXO or blockhash-bound chains. */
    nonce: number | null
}

export type BroadcastResult =
    | { kind: 'accepted' }
    /** The node refused it for good: it cannot land as signed (e.g. the sender cannot pay the fee). */
    | { kind: 'rejected'; reason: string; insufficientFunds: boolean }
    /** No clear answer (network error, node busy): rebroadcast the same bytes later. */
    | { kind: 'uncertain'; reason: string }

/** Where a mined transaction stands against a finality rule. */
export interface Settled {
    blockNumber: bigint
    /** Its block is at or below the finalized/safe tag, or has the configured confirmations. */
    final: boolean
    confirmations: number
}

export type TxState =
    | ({ kind: 'confirmed' } & Settled)
    | ({ kind: 'reverted' } & Settled)
    /** Known to the node, not mined yet. */
    | { kind: 'pending' }
    /** Unknown to the node but could still land: rebroadcast the same bytes. */
    | { kind: 'missing' }
    /**
     * Can never land, by the chain's final state (its inputs spent by another transaction at depth,
     * its expiration or blockhash passed in a final block): a new one may be signed, once a second
     * look agrees.
     */
    | { kind: 'dead' }
    /**
     * Account chains: its nonce was consumed in a final block and it has no receipt. Which
     * transaction used the nonce decides: another of ours (then this one is dead), or none we know
     * (the caller's policy; nothing is signed again). The sender finds out.
     */
    | { kind: 'superseded' }

/** A network as the durable sender sees it. */
export interface TxChain {
    /** The name stored with each transaction (the `chain` column). */
    readonly chain: string
    broadcast(raw: string): Promise<BroadcastResult>
    /**
     * Where a stored transaction stands; a mined one is also judged against `finality`. `raw` is the
     * stored signed bytes: chains without account nonces prove a transaction dead from its content.
     */
    inspect(tx: { hash: string; from: string; nonce: number | null; raw: string }, finality: Finality): Promise<TxState>
}
