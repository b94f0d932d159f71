// Contracts the indexer detected as proxies (docs/indexer.md#proxies), with their implementation
// and, for beacon proxies, their beacon (indexed: a beacon's Upgraded refreshes its proxies).
module.exports = class ProxyContracts1795435200000 {
    name = 'ProxyContracts1795435200000'

    async up(db) {
        await db.query(`CREATE TABLE "proxy_contract" ("id" character varying NOT NULL, "proxy_type" text NOT NULL, "implementation" text NOT NULL, "beacon" text, "block" integer NOT NULL, CONSTRAINT "PK_597447b3bd0c5383d14184a08fd" PRIMARY KEY ("id"))`)
        await db.query(`CREATE INDEX "IDX_0fa043a4e396abb5f2e89a1d8d" ON "proxy_contract" ("implementation") `)
        await db.query(`CREATE INDEX "IDX_77fd71793d9beb2802eb30bb8e" ON "proxy_contract" ("beacon") `)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_77fd71793d9beb2802eb30bb8e"`)
        await db.query(`DROP INDEX "public"."IDX_0fa043a4e396abb5f2e89a1d8d"`)
        await db.query(`DROP TABLE "proxy_contract"`)
    }
}
