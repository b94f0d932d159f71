/**
 * Postgres NOTIFY channels between processes. Every replica LISTENs itself, so live updates fan
 * out across any number of api processes without another message bus.
 */

/** The indexer announces each commit: the new indexed head and how many blocks the commit added. */
export const HEAD_CHANNEL = 'chain_head'

export interface HeadNotification {
    number: number
    hash: string
    blocks: number
}
