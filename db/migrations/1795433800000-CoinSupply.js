// The coin supply kept by the indexer (chain_counters.coin_supply): the sum of every address's
// balance, changed in the same commit as the balances, so the chain API reads one row instead of
// summing the address table. Filled here from the rows already indexed.
module.exports = class CoinSupply1795433800000 {
    name = 'CoinSupply1795433800000'

    async up(db) {
        await db.query(`ALTER TABLE "chain_counters" ADD "coin_supply" numeric NOT NULL DEFAULT 0`)
        await db.query(`UPDATE "chain_counters" SET "coin_supply" = (SELECT COALESCE(sum("balance"), 0) FROM "address")`)
        await db.query(`ALTER TABLE "chain_counters" ALTER COLUMN "coin_supply" DROP DEFAULT`)
    }

    async down(db) {
        await db.query(`ALTER TABLE "chain_counters" DROP COLUMN "coin_supply"`)
    }
}
