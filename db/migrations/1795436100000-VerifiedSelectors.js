// Lists name a transaction's method with the called contract's verified ABI (docs/chain-api.md#decoded-calls)
// without reading the ABI, which can be kilobytes per contract: a verification stores its functions as
// selector -> signature (common/evm/function-signatures.ts), filled here once for earlier rows, with the same rule
// (the first function declaring a selector wins; a malformed item is skipped).
// proxy_contract (block): the rendered-item cache finds the proxies the blocks since its last head
// upgraded (api/chain/queries/rendering-changes.ts) by an index range, not a scan of every proxy.
const { toFunctionSelector } = require('viem')

// As signatureText in common/evm/function-signatures.ts: a migration stays as it was written, so it keeps its own copy.
function signatureText(name, inputs) {
    return `${name}(${inputs.map((i) => [i.type, i.name ?? ''].filter(Boolean).join(' ')).join(', ')})`
}

function functionSignatures(abi) {
    const signatures = {}
    for (const item of Array.isArray(abi) ? abi : []) {
        if (item?.type !== 'function' || typeof item.name !== 'string') continue
        try {
            const selector = toFunctionSelector(item)
            if (!(selector in signatures)) signatures[selector] = signatureText(item.name, item.inputs ?? [])
        } catch {
            // a malformed parameter type: nothing to name it by
        }
    }
    return signatures
}

module.exports = class VerifiedSelectors1795436100000 {
    name = 'VerifiedSelectors1795436100000'

    async up(db) {
        await db.query(`ALTER TABLE "verified_contract" ADD COLUMN "selectors" jsonb`)
        // Verified contracts number some thousands; a page at a time keeps the ABIs read bounded.
        let after = ''
        for (;;) {
            const read = await db.query(`SELECT "id", "abi" FROM "verified_contract" WHERE "id" > $1 ORDER BY "id" LIMIT 500`, [after])
            // TypeORM's query runner answers the rows; a pg client (a test running this by hand) a result holding them.
            const rows = Array.isArray(read) ? read : read.rows
            if (rows.length === 0) break
            for (const row of rows) {
                await db.query(`UPDATE "verified_contract" SET "selectors" = $2 WHERE "id" = $1`, [row.id, JSON.stringify(functionSignatures(row.abi))])
            }
            after = rows[rows.length - 1].id
        }
        await db.query(`ALTER TABLE "verified_contract" ALTER COLUMN "selectors" SET NOT NULL`)
        await db.query(`CREATE INDEX "proxy_contract_block" ON "proxy_contract" ("block")`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."proxy_contract_block"`)
        await db.query(`ALTER TABLE "verified_contract" DROP COLUMN "selectors"`)
    }
}
