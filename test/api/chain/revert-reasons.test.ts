import { expect } from 'chai'
import { Client } from 'pg'
import { Abi, Address, createWalletClient, encodeFunctionData, getAddress, Hash, Hex, http } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, loadArtifact } from '../../../abi'
import { waitFor } from '../../../common/processes'
import { DEV_MNEMONIC } from '../../../devnet/anvil'
import { COMPILER_SETTINGS } from '../../../devnet/build-contracts'
import { deployContract, devnetChain, ZERO_FEES } from '../../../devnet/deploy'
import { ApiProcess, startApi } from '../../support/api'
import { CHAIN_ID, headHash, startTestChain, TestChain } from '../../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../../support/indexer'
import { createTestDatabase } from '../../support/postgres'
import { InternalTransaction, page, TransactionListItem, TransactionSingle } from './shapes'

/**
 * Revert reasons end to end (docs/chain-api.md#revert-reasons, docs/indexer.md#revert-data): the
 * test contracts of contracts/test/Reverter.sol fail in each way, the real indexer stores their
 * revert data (from the call trees, and by eth_call replays with INDEXER_TRACING=none), and the
 * real api process decodes it on /transactions/{h}, a custom error once the contract that raised
 * it is verified through the verification route.
 */
describe('chain data API: revert reasons of failed transactions and internal calls', function () {
    this.timeout(300_000)
    let chain: TestChain
    const traced = {} as { databaseUrl: string; indexer: IndexerProcess; api: ApiProcess; db: Client }
    const untraced = {} as { databaseUrl: string; indexer: IndexerProcess; api: ApiProcess; db: Client }
    const sender = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 3 })
    let caller: Address
    let target: Address
    const hashes = {} as Record<'requireMessage' | 'divide' | 'assertZero' | 'item' | 'refuse' | 'bare' | 'outOfGas' | 'tryRefuse' | 'bubbleRefuse', Hash>

    async function send(to: Address, abi: Abi, functionName: string, args: unknown[], gas = 300_000n): Promise<Hash> {
        const wallet = createWalletClient({ account: sender, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        // A fixed gas limit: estimating it would refuse a call that reverts.
        const hash = await wallet.sendTransaction({ to, data: encodeFunctionData({ abi, functionName, args }), gas, ...ZERO_FEES } as never)
        await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        return hash
    }

    async function v2(api: ApiProcess, path: string): Promise<any> {
        const res = await fetch(`${api.explorerUrl}/api/v2${path}`)
        expect(res.status, path).to.equal(200)
        return res.json()
    }
    const single = async (api: ApiProcess, hash: Hash) => TransactionSingle.parse(await v2(api, `/transactions/${hash}`))
    const stored = async (db: Client, hash: Hash) =>
        (await db.query(`SELECT error, '0x' || encode(revert_data, 'hex') AS revert_data FROM transaction WHERE id = $1`, [hash])).rows[0]
    /** What the node's own trace says the transaction's top-level call returned. */
    const nodeOutput = async (hash: Hash) =>
        ((await chain.client.request({ method: 'trace_transaction' as any, params: [hash] as any })) as any[])[0].result?.output as Hex

    async function index(into: typeof traced, name: string, env: Record<string, string>): Promise<void> {
        into.databaseUrl = await createTestDatabase(name)
        into.indexer = startIndexer({ databaseUrl: into.databaseUrl, rpcUrl: chain.url, contracts: chain.contracts, env })
        await waitForIndexedBlock(into.databaseUrl, await headHash(chain.client), into.indexer)
        into.db = new Client({ connectionString: into.databaseUrl })
        await into.db.connect()
        into.api = await startApi({ databaseUrl: into.databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
    }

    before(async () => {
        chain = await startTestChain()
        caller = (await deployContract(chain.url, CHAIN_ID, sender, 'RevertCaller', [])).address
        target = getAddress(await chain.client.readContract({ address: caller, abi: abis.RevertCaller, functionName: 'target' }))
        const reverter = abis.Reverter as Abi
        hashes.requireMessage = await send(target, reverter, 'requireMessage', [20n])
        hashes.divide = await send(target, reverter, 'divide', [1n, 0n])
        hashes.assertZero = await send(target, reverter, 'assertZero', [1n])
        hashes.item = await send(target, reverter, 'item', [3n])
        hashes.refuse = await send(target, reverter, 'refuse', [5n])
        hashes.bare = await send(target, reverter, 'bare', [])
        // Enough gas to start, not to finish: it fails without reverting.
        hashes.outOfGas = await send(target, reverter, 'requireMessage', [20n], 21_700n)
        hashes.tryRefuse = await send(caller, abis.RevertCaller as Abi, 'tryRefuse', [7n])
        hashes.bubbleRefuse = await send(caller, abis.RevertCaller as Abi, 'bubbleRefuse', [8n])
        await Promise.all([index(traced, 'reverts_traced', {}), index(untraced, 'reverts_untraced', { INDEXER_TRACING: 'none' })])
    })

    after(async () => {
        for (const side of [traced, untraced]) {
            await side.db?.end().catch(() => undefined)
            await side.api?.stop()
            await side.indexer?.stop()
        }
        await chain?.stop()
    })

    const errorReason = (reason: string) => ({
        method_id: '08c379a0', method_call: 'Error(string reason)', parameters: [{ name: 'reason', type: 'string', value: reason }],
    })
    const panic = (code: number) => ({
        method_id: '4e487b71', method_call: 'Panic(uint256 errorCode)', parameters: [{ name: 'errorCode', type: 'uint256', value: String(code) }],
    })
    const refused = (who: Address, amount: number) => ({
        method_id: '6ec168df',
        method_call: 'Refused(address who, uint256 amount, string why)',
        parameters: [
            { name: 'who', type: 'address', value: who },
            { name: 'amount', type: 'uint256', value: String(amount) },
            { name: 'why', type: 'string', value: 'over the limit' },
        ],
    })

    it('stores the top-level call\'s error and its revert data, as the node traced them', async () => {
        for (const name of ['requireMessage', 'divide', 'assertZero', 'item', 'refuse', 'bare', 'bubbleRefuse'] as const) {
            const receipt = await chain.client.getTransactionReceipt({ hash: hashes[name] })
            expect(receipt.status, name).to.equal('reverted')
            expect(await stored(traced.db, hashes[name]), name).to.deep.equal({ error: 'Reverted', revert_data: await nodeOutput(hashes[name]) })
        }
        expect((await stored(traced.db, hashes.bare)).revert_data).to.equal('0x')
        expect(await stored(traced.db, hashes.outOfGas)).to.deep.equal({ error: 'Out of gas', revert_data: null })
        expect(await stored(traced.db, hashes.tryRefuse)).to.deep.equal({ error: null, revert_data: null })
    })

    it('decodes Error(string) and each Panic(uint256) on /transactions/{h}; result is the traced error, as Blockscout\'s', async () => {
        const message = await single(traced.api, hashes.requireMessage)
        expect(message).to.deep.include({ status: 'error', result: 'Reverted', revert_reason: errorReason('Reverter: amount too large') })
        expect((await single(traced.api, hashes.divide)).revert_reason).to.deep.equal(panic(0x12))
        expect((await single(traced.api, hashes.assertZero)).revert_reason).to.deep.equal(panic(0x01))
        expect((await single(traced.api, hashes.item)).revert_reason).to.deep.equal(panic(0x32))
        // A revert without data, raw; a failure that is not a revert has no revert reason, as Blockscout's.
        expect((await single(traced.api, hashes.bare)).revert_reason).to.deep.equal({ raw: '0x' })
        expect(await single(traced.api, hashes.outOfGas)).to.deep.include({ status: 'error', result: 'Out of gas', revert_reason: null })
        expect(await single(traced.api, hashes.tryRefuse)).to.deep.include({ status: 'ok', result: 'success', revert_reason: null })
    })

    it('shows a custom error raw until the contract that raised it is verified, then decoded, also when a caller passed it up', async () => {
        const raw = { raw: await nodeOutput(hashes.refuse) }
        expect((await single(traced.api, hashes.refuse)).revert_reason).to.deep.equal(raw)
        // The caller is verified (deployed from our artifact), but its ABI does not declare the error.
        expect((await traced.db.query('SELECT name FROM verified_contract WHERE id = $1', [caller.toLowerCase()])).rows).to.deep.equal([{ name: 'RevertCaller' }])
        expect((await single(traced.api, hashes.bubbleRefuse)).revert_reason).to.deep.equal({ raw: await nodeOutput(hashes.bubbleRefuse) })

        const artifact = loadArtifact('Reverter')
        const input = {
            language: 'Solidity',
            sources: Object.fromEntries(Object.entries(artifact.sources).map(([file, content]) => [file, { content }])),
            settings: { ...COMPILER_SETTINGS, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
        }
        const form = new FormData()
        form.append('compiler_version', `v${artifact.compiler.version.replace(/\.Emscripten.*$/, '')}`)
        form.append('contract_name', 'Reverter')
        form.append('files[0]', new Blob([JSON.stringify(input)], { type: 'application/json' }), 'input.json')
        const res = await fetch(`${traced.api.explorerUrl}/api/v2/smart-contracts/${target}/verification/via/standard-input`, { method: 'POST', body: form })
        expect(res.status).to.equal(200)
        await waitFor('the Reverter verified', async () => (await v2(traced.api, `/smart-contracts/${target}`)).is_verified === true, 180_000, 250)

        expect((await single(traced.api, hashes.refuse)).revert_reason).to.deep.equal(refused(sender.address, 5))
        // Raised by the Reverter, passed up by its caller: decoded with the Reverter's ABI.
        expect((await single(traced.api, hashes.bubbleRefuse)).revert_reason).to.deep.equal(refused(caller, 8))
    })

    it('sends the revert data undecoded in lists, as Blockscout\'s lists do', async () => {
        const { blockNumber } = await chain.client.getTransactionReceipt({ hash: hashes.requireMessage })
        const list = page(TransactionListItem).parse(await v2(traced.api, `/blocks/${blockNumber}/transactions`))
        const item = list.items.find((t) => t.hash === hashes.requireMessage)!
        expect(item).to.deep.include({ result: 'Reverted', revert_reason: { raw: await nodeOutput(hashes.requireMessage) } })
    })

    it('shows a failed internal call\'s error as traced, and keeps its output for decoding', async () => {
        const tx = await single(traced.api, hashes.tryRefuse)
        expect(tx.has_error_in_internal_transactions).to.equal(true)
        const frames = page(InternalTransaction).parse(await v2(traced.api, `/transactions/${hashes.tryRefuse}/internal-transactions`))
        expect(frames.items.map((f) => [f.to?.hash, f.success, f.error])).to.deep.equal([[target, false, 'Reverted']])
        const [frame] = (await traced.db.query(`SELECT '0x' || encode(output, 'hex') AS output FROM internal_transaction WHERE transaction_hash = $1 AND index = 1`, [hashes.tryRefuse])).rows
        const trace = (await chain.client.request({ method: 'trace_transaction' as any, params: [hashes.tryRefuse] as any })) as any[]
        expect(frame.output).to.equal(trace[1].result.output)
        expect(frame.output.slice(0, 10)).to.equal('0x6ec168df')
    })

    it('with INDEXER_TRACING=none, replays each failed transaction at its parent block for the same revert data; no traced error', async () => {
        for (const name of ['requireMessage', 'divide', 'assertZero', 'item', 'refuse', 'bare', 'bubbleRefuse'] as const) {
            expect(await stored(untraced.db, hashes[name]), name).to.deep.equal({ error: null, revert_data: (await stored(traced.db, hashes[name])).revert_data })
        }
        // The replay runs out of gas too: not a revert, so no revert data.
        expect(await stored(untraced.db, hashes.outOfGas)).to.deep.equal({ error: null, revert_data: null })
        expect(await stored(untraced.db, hashes.tryRefuse)).to.deep.equal({ error: null, revert_data: null })

        expect(await single(untraced.api, hashes.requireMessage)).to.deep.include({ result: 'execution reverted', revert_reason: errorReason('Reverter: amount too large') })
        expect((await single(untraced.api, hashes.divide)).revert_reason).to.deep.equal(panic(0x12))
        expect(await single(untraced.api, hashes.outOfGas)).to.deep.include({ result: 'execution reverted', revert_reason: null })
        // Without call trees only the called contract's ABI is tried: the caller's does not declare the error.
        expect((await single(untraced.api, hashes.bubbleRefuse)).revert_reason).to.deep.equal({ raw: (await stored(traced.db, hashes.bubbleRefuse)).revert_data })
        const frames = page(InternalTransaction).parse(await v2(untraced.api, `/transactions/${hashes.tryRefuse}/internal-transactions`))
        expect(frames.items).to.deep.equal([])
    })
})
