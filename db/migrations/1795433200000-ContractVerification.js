// Contract verification (hand-written): a verified contract records how it matched (`full`, or
// `partial` when only the metadata hash differs) and the compiler settings it was compiled with;
// each submission through the API is a job whose outcome checkverifystatus reads
// (docs/contract-verification.md).
module.exports = class ContractVerification1795433200000 {
    name = 'ContractVerification1795433200000'

    async up(db) {
        await db.query(`ALTER TABLE "verified_contract"
            ADD COLUMN "match_type" text,
            ADD COLUMN "compiler_settings" jsonb`)
        await db.query(`CREATE TABLE "contract_verification" (
            "id" uuid NOT NULL DEFAULT gen_random_uuid(),
            "address" text NOT NULL,
            "status" text NOT NULL DEFAULT 'pending',
            "reason" text,
            "match_type" text,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "finished_at" TIMESTAMP WITH TIME ZONE,
            CONSTRAINT "PK_contract_verification" PRIMARY KEY ("id"))`)
        await db.query(`CREATE INDEX "IDX_contract_verification_created" ON "contract_verification" ("created_at")`)
    }

    async down(db) {
        await db.query(`DROP TABLE "contract_verification"`)
        await db.query(`ALTER TABLE "verified_contract" DROP COLUMN "match_type", DROP COLUMN "compiler_settings"`)
    }
}
