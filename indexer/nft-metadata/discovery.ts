import { Pool } from 'pg'

/**
 * Finds the NFT instances to fetch metadata for: new (token, token id) pairs in `token_transfer`
 * (rows with a token id: ERC-721 and ERC-1155), walked in chain order from a cursor kept in
 * `nft_metadata_cursor`, never by comparing the whole transfer table with the cache. The partial
 * index `token_transfer_nft_order` holds only NFT transfers, so a page costs its own rows.
 *
 * Reorganisations: transfers of unfinalized blocks can be replaced under the cursor, so once caught
 * up each pass walks again the last `marginBlocks` blocks (the indexer's finality) behind it; an
 * instance already known is skipped (ON CONFLICT DO NOTHING). One dropped by a reorganisation keeps
 * its row: the cache is not chain history, and the API shows only instances the chain tables hold.
 */

const CURSOR = 'token_transfer'

export interface DiscoveryOptions {
    /** transfers read per statement */
    pageSize: number
    /** blocks behind the cursor read again once caught up (INDEXER_FINALITY_CONFIRMATION) */
    marginBlocks: number
}

interface Key {
    block_number: number
    log_index: number
}

export class InstanceDiscovery {
    constructor(private readonly pool: Pool, private readonly options: DiscoveryOptions) {}

    /** Reads up to `pages` pages of new transfers and inserts their instances; walks the margin once caught up. Answers the instances inserted. */
    async scan(pages = 10): Promise<number> {
        let cursor = await this.cursor()
        let inserted = 0
        let caughtUp = false
        for (let page = 0; page < pages && !caughtUp; page++) {
            const { rows } = await this.pool.query<Key & { inserted: number }>(
                `WITH page AS (
                     SELECT block_number, log_index, token, token_id, token_type FROM token_transfer
                      WHERE token_id IS NOT NULL AND (block_number, log_index) > ($1, $2)
                      ORDER BY block_number, log_index LIMIT $3
                 ), last AS (
                     SELECT block_number, log_index FROM page ORDER BY block_number DESC, log_index DESC LIMIT 1
                 ), ins AS (
                     ${INSERT_INSTANCES}
                 )
                 SELECT last.block_number, last.log_index, (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM page)::int AS rows
                   FROM last`,
                [cursor.block_number, cursor.log_index, this.options.pageSize]
            )
            const last = rows[0] as (Key & { inserted: number; rows: number }) | undefined
            if (!last) {
                caughtUp = true
                break
            }
            inserted += last.inserted
            // Rows sharing the last key (an ERC-1155 batch's ids, if kept under one log) are all read before the cursor passes it.
            inserted += await this.insertRange(last, last)
            cursor = { block_number: last.block_number, log_index: last.log_index }
            await this.pool.query(
                `INSERT INTO nft_metadata_cursor (id, block_number, log_index) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO UPDATE SET block_number = EXCLUDED.block_number, log_index = EXCLUDED.log_index`,
                [CURSOR, cursor.block_number, cursor.log_index]
            )
            caughtUp = last.rows < this.options.pageSize
        }
        if (caughtUp) inserted += await this.insertRange({ block_number: cursor.block_number - this.options.marginBlocks, log_index: -1 }, cursor)
        return inserted
    }

    async cursor(): Promise<Key> {
        const { rows } = await this.pool.query<Key>('SELECT block_number, log_index FROM nft_metadata_cursor WHERE id = $1', [CURSOR])
        return rows[0] ?? { block_number: -1, log_index: -1 }
    }

    /** Instances of the transfers from `from` (exclusive) through `to` (inclusive). */
    private async insertRange(from: Key, to: Key): Promise<number> {
        const exclusiveFrom = from === to ? { block_number: from.block_number, log_index: from.log_index - 1 } : from
        const { rows } = await this.pool.query<{ inserted: number }>(
            `WITH page AS (
                 SELECT block_number, log_index, token, token_id, token_type FROM token_transfer
                  WHERE token_id IS NOT NULL AND (block_number, log_index) > ($1, $2) AND (block_number, log_index) <= ($3, $4)
             ), ins AS (
                 ${INSERT_INSTANCES}
             )
             SELECT count(*)::int AS inserted FROM ins`,
            [exclusiveFrom.block_number, exclusiveFrom.log_index, to.block_number, to.log_index]
        )
        return rows[0].inserted
    }
}

/** New instances of `page`, due at once; the type is the token's (which the indexer may have refined) or else the transfer's. */
const INSERT_INSTANCES = `INSERT INTO nft_metadata (token, token_id, token_type, status, next_attempt_at)
                     SELECT DISTINCT ON (p.token, p.token_id) p.token, p.token_id, COALESCE(t.type, p.token_type), 'pending', now()
                       FROM page p LEFT JOIN token t ON t.id = p.token
                      ORDER BY p.token, p.token_id
                     ON CONFLICT (token, token_id) DO NOTHING
                     RETURNING 1`
