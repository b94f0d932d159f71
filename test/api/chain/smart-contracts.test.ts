import { expect } from 'chai'
import { Hex } from 'viem'
import { Stack, UNVERIFIED_INIT_CODE, UNVERIFIED_RUNTIME_CODE } from '../../support/stack'
import { expect404, expect422, getOk, iso, stack, unknownAddress, v2 } from './helpers'
import * as S from './shapes'

describe('chain API: /smart-contracts', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    async function verifiedRow(address: string) {
        const { rows } = await s.db.query('SELECT * FROM verified_contract WHERE id = $1', [address.toLowerCase()])
        expect(rows, `${address} is verified in the database`).to.have.length(1)
        return rows[0]
    }

    it('a verified contract of ours (the router): source, additional sources, ABI, compiler data, bytecodes, constructor args', async () => {
        const router = s.contracts.router
        const row = await verifiedRow(router)
        const c = await getOk(`/smart-contracts/${router}`, S.SmartContractVerified)
        expect(c.is_verified).to.equal(true)
        expect(c.name).to.equal('AmmRouter')
        // [choice] Blockscout writes compiler versions as "v0.8.30+commit.73712a01"; the stored
        // version (solc's long form) is accepted as is or with that prefix.
        expect(c.compiler_version).to.be.oneOf([row.compiler_version, `v${row.compiler_version}`, `v${row.compiler_version.replace(/\.Emscripten\.clang$/, '')}`])
        expect(c.compiler_version).to.include('0.8.30+commit.73712a01')
        expect(c.evm_version).to.equal('cancun')
        expect(c.optimization_enabled).to.equal(true)
        expect(c.optimization_runs).to.equal(200)
        expect(c.language).to.equal('solidity')
        expect(c.verified_at).to.equal(iso(row.verified_at))
        expect(c.file_path).to.equal(row.source_name)
        expect(c.source_code).to.equal(row.sources[row.source_name])
        expect(c.additional_sources.map((a) => a.file_path).sort()).to.deep.equal(Object.keys(row.sources).filter((k) => k !== row.source_name).sort())
        for (const extra of c.additional_sources) expect(extra.source_code, extra.file_path).to.equal(row.sources[extra.file_path])
        expect(c.abi).to.deep.equal(row.abi)
        expect(c.constructor_args).to.equal(row.constructor_arguments)
        expect(c.constructor_args, 'the router takes (factory, wnative)').to.not.equal(null)
        expect(c.creation_status).to.equal('success')
        expect(c.compiler_settings).to.have.property('optimizer')
    })

    it('the unverified contract\'s bytecodes are the hand-assembled ones', async () => {
        const res = await v2(`/smart-contracts/${s.extras.unverified.address}`)
        expect(res.body.deployed_bytecode).to.equal(UNVERIFIED_RUNTIME_CODE)
        expect(res.body.creation_bytecode).to.equal(UNVERIFIED_INIT_CODE)
    })

    it('bytecodes: deployed_bytecode is the code on chain, creation_bytecode the creation input', async () => {
        // [choice] the reference types both string|null; Blockscout fills them whenever it has
        // them, and the frontend's contract tab shows them (the only content for an unverified
        // contract). The api has the node (RPC_URL) and the creation input is in the database.
        for (const address of [s.contracts.router, s.pairs['WNATIVE/STABLE'], s.extras.unverified.address]) {
            const res = await v2(`/smart-contracts/${address}`)
            expect(res.status, res.text).to.equal(200)
            expect(res.body.deployed_bytecode, `${address} deployed_bytecode`).to.equal(await s.client.getCode({ address: address as Hex }))
        }
        for (const address of [s.contracts.router, s.extras.unverified.address]) {
            const creation = (await s.db.query('SELECT input FROM transaction WHERE created_contract = $1', [address.toLowerCase()])).rows[0]
            const res = await v2(`/smart-contracts/${address}`)
            expect(res.body.creation_bytecode, `${address} creation_bytecode`).to.equal(`0x${creation.input.toString('hex')}`)
        }
    })

    it('a pair created by our factory: verified as AmmPair, no constructor arguments', async () => {
        const pair = s.pairs['WNATIVE/STABLE']
        const c = await getOk(`/smart-contracts/${pair}`, S.SmartContractVerified)
        expect(c.name).to.equal('AmmPair')
        expect(c.is_verified).to.equal(true)
        expect(c.constructor_args).to.equal(null)
    })

    it('a contract that is not ours: the unverified answer (bytecodes, creation status, no source)', async () => {
        const { address } = s.extras.unverified
        const res = await v2(`/smart-contracts/${address}`)
        expect(res.status, res.text).to.equal(200)
        const c = shapeOf(res.body)
        expect(c.creation_status).to.equal('success')
        expect(c.proxy_type).to.equal(null)
        expect(c.implementations).to.deep.equal([])
        // Fields of the verified form are absent, or say "not verified".
        expect(res.body.is_verified ?? false).to.equal(false)
        expect(res.body.source_code ?? null).to.equal(null)
        expect(res.body.abi ?? null).to.equal(null)

        function shapeOf(body: unknown) {
            const parsed = S.SmartContractUnverified.safeParse(body)
            if (!parsed.success) expect.fail(`unverified smart contract: ${parsed.error.message}`)
            return parsed.data
        }
    })

    it('an address without code is 404: an account, an unknown address', async () => {
        await expect404(`/smart-contracts/${s.account(10).address}`)
        await expect404(`/smart-contracts/${unknownAddress()}`)
    })

    it('malformed hashes are 422', async () => {
        for (const bad of ['0x1234', 'abc', `0x${'g'.repeat(40)}`, `0x${'a'.repeat(64)}`]) {
            await expect422(`/smart-contracts/${bad}`)
        }
    })
})
