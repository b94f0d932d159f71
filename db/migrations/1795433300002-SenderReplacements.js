// The durable sender's fee bump (docs/sending.md): a transaction priced out by the base fee is
// replaced at its nonce by a new row linked to it; both are followed until one lands.
module.exports = class SenderReplacements1795433300002 {
    name = 'SenderReplacements1795433300002'

    async up(db) {
        await db.query(`ALTER TABLE "bridge_tx" ADD "replaces" bigint REFERENCES "bridge_tx" ("id")`)
        await db.query(`ALTER TABLE "platform_tx" ADD "replaces" bigint REFERENCES "platform_tx" ("id")`)
        // A replacement shares its original's nonce, so at most one of the two can land: it may be live beside it.
        // Originals stay one live per swap and purpose.
        await db.query(`DROP INDEX "public"."UQ_bridge_tx_live"`)
        await db.query(`CREATE UNIQUE INDEX "UQ_bridge_tx_live" ON "bridge_tx" ("swap_id", "purpose") WHERE "status" NOT IN ('rejected', 'dead') AND "purpose" <> 'gather_gas' AND "replaces" IS NULL`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."UQ_bridge_tx_live"`)
        await db.query(`CREATE UNIQUE INDEX "UQ_bridge_tx_live" ON "bridge_tx" ("swap_id", "purpose") WHERE "status" NOT IN ('rejected', 'dead') AND "purpose" <> 'gather_gas'`)
        await db.query(`ALTER TABLE "platform_tx" DROP COLUMN "replaces"`)
        await db.query(`ALTER TABLE "bridge_tx" DROP COLUMN "replaces"`)
    }
}
