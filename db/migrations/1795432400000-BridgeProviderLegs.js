// Bridge, fourth step (hand-written): the external swap provider's leg of a swap.
module.exports = class BridgeProviderLegs1795432400000 {
    name = 'BridgeProviderLegs1795432400000'

    async up(db) {
        // One leg per swap at most. The row is written (state 'creating') before the provider is
        // asked to create the exchange, so a crash or a timeout in between leaves a row without an
        // exchange id, which the engine holds for an operator instead of creating a second exchange.
        // Amounts are base units of sell_token (amount_in) and buy_token (the rest).
        await db.query(`CREATE TABLE "bridge_provider_leg" (
            "swap_id" uuid NOT NULL,
            "provider" text NOT NULL,
            "side" text NOT NULL,
            "sell_chain" text NOT NULL, "sell_token" text NOT NULL,
            "buy_chain" text NOT NULL, "buy_token" text NOT NULL,
            "amount_in" numeric(78,0) NOT NULL,
            "expected_out" numeric(78,0) NOT NULL,
            "state" text NOT NULL,
            "exchange_id" text,
            "provider_status" text,
            "deposit_address" text, "deposit_extra_id" text,
            "payout_address" text NOT NULL, "refund_address" text NOT NULL,
            "amount_out" numeric(78,0), "tx_in" text, "tx_out" text,
            -- The buy chain's first block that can hold the provider's payout into our vault, moved
            -- forward as the engine scans for it; then the block it was found in.
            "scan_from" bigint NOT NULL, "payout_block" bigint, "payout_block_hash" text,
            "error" text,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_bridge_provider_leg" PRIMARY KEY ("swap_id"),
            CONSTRAINT "CHK_bridge_provider_leg_state" CHECK ("state" IN ('creating', 'created', 'uncertain', 'settled', 'ended')),
            CONSTRAINT "FK_bridge_provider_leg_swap" FOREIGN KEY ("swap_id") REFERENCES "bridge_swap" ("id") ON DELETE CASCADE)`)
        await db.query(`CREATE UNIQUE INDEX "UQ_bridge_provider_leg_exchange" ON "bridge_provider_leg" ("provider", "exchange_id") WHERE "exchange_id" IS NOT NULL`)
    }

    async down(db) {
        await db.query(`DROP TABLE "bridge_provider_leg"`)
    }
}
