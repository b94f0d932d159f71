// An address's NFT transfers (ERC-721 and ERC-1155: the rows with a token id) in chain order, by
// side: /api/v2/addresses/{hash}/token-transfers?type=ERC-721,ERC-1155 and Etherscan's tokennfttx
// and token1155tx read one index range per side, not every newer transfer of an address whose
// history is mostly ERC-20. Partial: ERC-20 transfers, most rows, cost the backfill no entry here.
module.exports = class NftTransferAddressIndexes1795436200000 {
    name = 'NftTransferAddressIndexes1795436200000'

    async up(db) {
        await db.query(`CREATE INDEX "token_transfer_nft_from" ON "token_transfer" ("from", "block_number", "log_index") WHERE "token_id" IS NOT NULL`)
        await db.query(`CREATE INDEX "token_transfer_nft_to" ON "token_transfer" ("to", "block_number", "log_index") WHERE "token_id" IS NOT NULL`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."token_transfer_nft_to"`)
        await db.query(`DROP INDEX "public"."token_transfer_nft_from"`)
    }
}
