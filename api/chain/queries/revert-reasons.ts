import { internalTransactionId } from '../../../db/row-ids'
import { Db } from '../db'

/**
 * The verified ABIs that may declare a failed transaction's custom error, most likely first: the
 * contracts whose failed frames returned exactly the transaction's revert data, deepest first (the
 * one that raised it; its callers passed it up unchanged), then the called contract (all there is
 * without call trees). A proxy's own ABI is followed by its implementation's, as calls to it are
 * decoded (docs/chain-api.md#revert-reasons).
 */
export async function revertAbis(db: Db, tx: { block_number: number; index: number; to: string | null; revert_data: Buffer }): Promise<unknown[][]> {
    const { rows } = await db.query<{ own: unknown[] | null; implementation: unknown[] | null }>(
        `WITH candidates AS (
             SELECT i."to" AS address, i.index AS depth_order FROM internal_transaction i
              WHERE i.id >= $1 AND i.id <= $2 AND i.error IS NOT NULL AND i.output = $3 AND i."to" IS NOT NULL
             UNION ALL SELECT $4::text, -1 WHERE $4::text IS NOT NULL
         ), ordered AS (
             SELECT address, max(depth_order) AS depth_order FROM candidates GROUP BY address
         )
         SELECT v.abi AS own, impl.abi AS implementation
           FROM ordered o
           LEFT JOIN verified_contract v ON v.id = o.address
           LEFT JOIN proxy_contract p ON p.id = o.address
           LEFT JOIN verified_contract impl ON impl.id = p.implementation
          WHERE v.abi IS NOT NULL OR impl.abi IS NOT NULL
          ORDER BY o.depth_order DESC`,
        [internalTransactionId(tx.block_number, tx.index, 0), internalTransactionId(tx.block_number, tx.index, 999_999), tx.revert_data, tx.to]
    )
    return rows.flatMap((r) => [r.own, r.implementation].filter((abi): abi is unknown[] => abi !== null))
}
