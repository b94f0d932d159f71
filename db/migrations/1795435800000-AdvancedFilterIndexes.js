// The advanced filter's method filter (GET /api/v2/advanced-filters?methods=...): a transaction's
// method id in chain order, so a page of one method's transactions (and the token transfers they
// made) is an index range per method, not a walk through every newer transaction. Partial: plain
// coin transfers carry no method id and cost the backfill no index entry.
module.exports = class AdvancedFilterIndexes1795435800000 {
    name = 'AdvancedFilterIndexes1795435800000'

    async up(db) {
        await db.query(`CREATE INDEX "transaction_method" ON "transaction" ("method_id", "block_number", "index") WHERE "method_id" IS NOT NULL`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."transaction_method"`)
    }
}
