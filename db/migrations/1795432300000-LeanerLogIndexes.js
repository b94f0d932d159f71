// Logs and token transfers hold most of the indexed rows, and every index on them is one more
// write per row during a backfill. Their id is the zero-padded (block number, log index), so the
// primary key already is the (block, index) order, and a transaction's logs and transfers are
// found by the id range of its block: these four indexes repeat what the key gives.
module.exports = class LeanerLogIndexes1795432300000 {
    name = 'LeanerLogIndexes1795432300000'

    async up(db) {
        await db.query(`DROP INDEX "public"."IDX_e153ef483941ea70d7d6678f2d"`)
        await db.query(`DROP INDEX "public"."IDX_b4c4acb42f41fef2d1d1e7bb84"`)
        await db.query(`DROP INDEX "public"."IDX_37ea8c75de1da03a96273dc9c8"`)
        await db.query(`DROP INDEX "public"."IDX_ef8fd899ffcb2bb8717da55786"`)
    }

    async down(db) {
        await db.query(`CREATE INDEX "IDX_ef8fd899ffcb2bb8717da55786" ON "token_transfer" ("transaction_hash", "log_index") `)
        await db.query(`CREATE UNIQUE INDEX "IDX_37ea8c75de1da03a96273dc9c8" ON "token_transfer" ("block_number", "log_index") `)
        await db.query(`CREATE INDEX "IDX_b4c4acb42f41fef2d1d1e7bb84" ON "log" ("transaction_hash", "index") `)
        await db.query(`CREATE UNIQUE INDEX "IDX_e153ef483941ea70d7d6678f2d" ON "log" ("block_number", "index") `)
    }
}
