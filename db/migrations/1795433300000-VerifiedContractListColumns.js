// The verified-contracts list reads only columns (docs/contract-verification.md, Storage): the
// SPDX identifier the main source declares is stored when a contract is verified, so the list's
// cost does not grow with the sources' size. Existing rows are filled from their sources once,
// here; the pattern is the one the writers use (common/spdx.ts).
module.exports = class VerifiedContractListColumns1795433300000 {
    name = 'VerifiedContractListColumns1795433300000'

    async up(db) {
        await db.query(`ALTER TABLE "verified_contract" ADD COLUMN "spdx" text`)
        await db.query(`UPDATE "verified_contract"
            SET "spdx" = substring("sources" ->> "source_name" from 'SPDX-License-Identifier:\\s*([^\\s*]+)')`)
    }

    async down(db) {
        await db.query(`ALTER TABLE "verified_contract" DROP COLUMN "spdx"`)
    }
}
