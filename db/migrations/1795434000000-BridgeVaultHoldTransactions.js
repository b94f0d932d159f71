// Bridge (hand-written): vault holds of chains without account nonces (BITCOIN, TRON, SOLANA;
// bridge/engine/ledger-guard.ts). Their vault is held for named transactions the ledger does not
// know, not for a nonce count: unknown_txs records them, and once an operator releases the hold
// they count as known. ledger_next and chain_next stay the EVM counts and are NULL for the others.
module.exports = class BridgeVaultHoldTransactions1795434000000 {
    name = 'BridgeVaultHoldTransactions1795434000000'

    async up(db) {
        await db.query(`ALTER TABLE "bridge_vault_hold" ADD "unknown_txs" text[]`)
        await db.query(`ALTER TABLE "bridge_vault_hold" ALTER COLUMN "ledger_next" DROP NOT NULL`)
        await db.query(`ALTER TABLE "bridge_vault_hold" ALTER COLUMN "chain_next" DROP NOT NULL`)
        // A hold names either counts (EVM) or transactions (the others).
        await db.query(`ALTER TABLE "bridge_vault_hold" ADD CONSTRAINT "CHK_bridge_vault_hold_evidence"
            CHECK ((ledger_next IS NOT NULL AND chain_next IS NOT NULL) OR unknown_txs IS NOT NULL)`)
        // The guard looks up the vault's listed transactions by hash before each vault signature.
        await db.query(`CREATE INDEX "IDX_bridge_tx_hash" ON "bridge_tx" ("chain", "tx_hash")`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_bridge_tx_hash"`)
        await db.query(`ALTER TABLE "bridge_vault_hold" DROP CONSTRAINT "CHK_bridge_vault_hold_evidence"`)
        await db.query(`DELETE FROM "bridge_vault_hold" WHERE ledger_next IS NULL OR chain_next IS NULL`)
        await db.query(`ALTER TABLE "bridge_vault_hold" ALTER COLUMN "chain_next" SET NOT NULL`)
        await db.query(`ALTER TABLE "bridge_vault_hold" ALTER COLUMN "ledger_next" SET NOT NULL`)
        await db.query(`ALTER TABLE "bridge_vault_hold" DROP COLUMN "unknown_txs"`)
    }
}
