// Bridge (hand-written): vault holds, the ledger guard's record (bridge/engine/ledger-guard.ts). A
// vault whose node counts more transactions than bridge_tx accounts for (a restore to an earlier
// point, another user of its key) signs nothing more until an operator has accounted for them.
module.exports = class BridgeVaultHolds1795433900100 {
    name = 'BridgeVaultHolds1795433900100'

    async up(db) {
        await db.query(`CREATE TABLE "bridge_vault_hold" (
            "id" bigserial NOT NULL,
            "chain" text NOT NULL,
            "address" text NOT NULL,
            "ledger_next" bigint NOT NULL,
            "chain_next" bigint NOT NULL,
            "reason" text NOT NULL,
            "held_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "released_at" TIMESTAMP WITH TIME ZONE,
            CONSTRAINT "PK_bridge_vault_hold" PRIMARY KEY ("id"))`)
        // One open hold per vault: the replica that sees the gap first opens it, the others find it.
        await db.query(`CREATE UNIQUE INDEX "UQ_bridge_vault_hold_open" ON "bridge_vault_hold" ("chain", "address") WHERE "released_at" IS NULL`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."UQ_bridge_vault_hold_open"`)
        await db.query(`DROP TABLE "bridge_vault_hold"`)
    }
}
