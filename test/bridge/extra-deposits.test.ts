import { expect } from 'chai'
import * as fs from 'fs'
import { Address, encodeFunctionData, erc20Abi, Hash, parseUnits, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { waitFor } from '../../common/processes'
import { EsploraServer, startEsploraServer } from '../../devnet/bitcoin/esplora'
import { SimpleSwapServer } from '../../devnet/provider/server'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, balanceOf, BridgeChains, BridgeProcess, bridgeEnv, createSwap, eventsOf, fundVaults, giveTokens, regtestAddress, send,
    startBridge, startBridgeChains, tempDir, TestChain, transferAmounts, vaultOf, waitForStatus,
} from './support'

/**
 * Issue 35: a second deposit to a swap's address, before or after the gather, is never kept by the
 * vault. The swap credits and gathers only the deposit the monitor saw first; every other transfer
 * stays at the address and is refunded once the swap ended (docs/bridge/lifecycle.md#extra-and-late-deposits).
 * Everything is counted on chain: what the gather moved, what the refund address received, what
 * the source vault kept.
 */
describe('bridge: extra deposits to one swap address, before and after the gather', function () {
    let w: BridgeChains
    let btc: EsploraServer
    let ss: SimpleSwapServer
    let bridge: BridgeProcess
    let dir: string

    const outputsOf = (address: string) => btc.ledger.unspentOf(btc.ledger.scriptOf(address))

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_extra_deposits')
        ;[w, btc, ss] = await Promise.all([startBridgeChains(), startEsploraServer('regtest'), new SimpleSwapServer().start()])
        // BTC routes go through the provider: it must quote them for a BTC swap to be created.
        ss.setPair(['btc', 'btc'], ['usdt', 'bsc'], { rate: '89000', min: '0.0005', max: '5' })
        dir = tempDir()
        bridge = await startBridge({
            ...bridgeEnv(w, databaseUrl, dir),
            // Ten blocks (one a second) between the first deposit's detection and its gather: the
            // second deposit, sent as soon as the swap says deposit_detected, lands before it.
            BRIDGE_CONFIRMATIONS_NATIVECHAIN: '10',
            BITCOIN_NETWORK: 'regtest',
            BITCOIN_ESPLORA_URL: btc.url,
            SIMPLESWAP_API_KEY: ss.apiKey,
            SIMPLESWAP_API_URL: ss.baseUrl,
            BRIDGE_PROVIDER_POLL_SECONDS: '1',
        })
        await fundVaults(w, bridge)
        // The BITCOIN vault pays the refunds' network fees.
        btc.ledger.fund(await vaultOf(bridge, 'BITCOIN' as any), 10_000_000n)
        btc.ledger.mine(1)
    })

    after(async function () {
        await bridge?.stop()
        await Promise.allSettled([w?.stop(), btc?.close(), ss?.stop()])
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    async function swapBody(id: string): Promise<any> {
        return (await api(bridge, 'GET', `/api/swap/${id}`)).body
    }

    /**
     * Five more blocks (a second each) after the refunds: five more monitor cycles and many worker
     * passes, by which a second refund of the same money would have gone out. BITCOIN mines along.
     */
    async function quiet(): Promise<void> {
        const chain = w.chains.NATIVECHAIN
        const from = await chain.client.getBlockNumber()
        await waitFor('five more blocks', async () => {
            btc.ledger.mine(1)
            return (await chain.client.getBlockNumber()) >= from + 5n || undefined
        }, 60_000, 500)
    }

    /** Until every late deposit is refunded and together they are `count`; `tick` runs on each look (BITCOIN mines a block). */
    async function refundedExtras(id: string, count: number, tick: () => void = () => {}): Promise<any[]> {
        return waitFor(`${count} extra deposit(s) of ${id} refunded`, async () => {
            tick()
            const body = await swapBody(id)
            const late = body.late_deposits
            const refunded = late.filter((l: any) => l.status === 'refunded')
            return refunded.length === late.length && late.length >= count ? late : undefined
        }, 120_000, 300)
    }

    /**
     * Two transfers from development account `from` to `to`, in two consecutive blocks mined by one
     * request: the late-deposit watch, which reads the address once a cycle, finds them together (one
     * late deposit of their sum). Interval mining pauses meanwhile, and the block gas limit lets one
     * of them (each asks for 60,000 gas) into a block. Their hashes, in the order sent.
     */
    async function twoTransfersInTwoBlocks(chain: TestChain, from: number, to: Address, amounts: [bigint, bigint], token?: Address): Promise<Hash[]> {
        const rpc = (method: string, params: unknown[]) => chain.client.request({ method: method as any, params: params as any }) as Promise<any>
        const gasLimit = (await chain.client.getBlock()).gasLimit
        const hashes: Hash[] = []
        await rpc('evm_setIntervalMining', [0])
        try {
            await rpc('evm_setBlockGasLimit', [toHex(80_000n)])
            for (const amount of amounts) {
                const call = token
                    ? { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) }
                    : { to, value: toHex(amount) }
                hashes.push(await rpc('eth_sendTransaction', [{ from: account(from).address, gas: toHex(60_000n), gasPrice: '0x0', ...call }]))
            }
            await rpc('anvil_mine', [toHex(2n)])
        } finally {
            await rpc('evm_setBlockGasLimit', [toHex(gasLimit)])
            await rpc('evm_setIntervalMining', [1])
        }
        const receipts = await Promise.all(hashes.map((hash) => chain.client.waitForTransactionReceipt({ hash, pollingInterval: 100 })))
        // The premise: two transfers, each in a block of its own, both succeeded.
        expect(receipts.map((r) => r.status)).to.deep.equal(['success', 'success'])
        expect(receipts[1].blockNumber).to.equal(receipts[0].blockNumber + 1n)
        return hashes
    }

    /** A swap from the native chain (its vault and a fresh refund address with it), refunded to that address. */
    async function nativeChainSwap(source_token: string, source_token_amount: string, target_chain: string, target_token: string) {
        const chain = w.chains.NATIVECHAIN
        const refund = privateKeyToAccount(generatePrivateKey()).address
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token, target_chain, target_token,
            source_token_amount, target_wallet: account(9).address, refund_address: refund,
        })
        return { chain, refund, vault: await vaultOf(bridge, 'NATIVECHAIN'), swap }
    }

    /** A swap of 0.5 NATIVE on the native chain to ETHEREUM USDT. */
    const coinSwap = () => nativeChainSwap('NATIVE', '0.5', 'ETHEREUM', 'USDT')

    /** A swap of 30 STABLE on the native chain to BSC WNATIVE. */
    async function stableSwap() {
        return { ...(await nativeChainSwap('STABLE', '30', 'BSC', 'WNATIVE')), stable: w.chains.NATIVECHAIN.tokens.STABLE }
    }

    /** A swap of 0.01 BTC to NATIVE, refunded to a fresh regtest address. */
    async function btcSwap() {
        const refund = regtestAddress()
        const swap = await createSwap(bridge, {
            source_chain: 'BITCOIN', source_token: 'BTC', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: '0.01', target_wallet: account(7).address, refund_address: refund,
        })
        return { refund, swap }
    }

    /** The one late deposit of a swap that lists several transfers, once refunded. */
    async function refundedTogether(id: string): Promise<any> {
        const late = await refundedExtras(id, 1)
        expect(late).to.have.length(1)
        return late[0]
    }

    it('EVM coin: two extras sent after the swap completed, in two blocks, are one late deposit listing both, refunded together once', async function () {
        const { chain, refund, vault, swap } = await coinSwap()
        const [first, a, b] = [parseUnits('0.5', 18), parseUnits('0.3', 18), parseUnits('0.2', 18)]
        await send(chain, 5, swap.deposit_address, first)
        await waitForStatus(bridge, swap.id, ['completed'], 180_000)
        const hashes = await twoTransfersInTwoBlocks(chain, 5, swap.deposit_address, [a, b])
        const receipts = await Promise.all(hashes.map((hash) => chain.client.getTransactionReceipt({ hash })))
        const late = await refundedTogether(swap.id)
        // Each transfer the test sent, with its amount and block; together the whole late deposit.
        expect(late.transfers).to.deep.equal([
            { tx_hash: hashes[0], amount: '0.3', block_number: receipts[0].blockNumber.toString() },
            { tx_hash: hashes[1], amount: '0.2', block_number: receipts[1].blockNumber.toString() },
        ])
        expect(late).to.include({ amount: '0.5', unattributed_amount: '0', tx_hash: null, block_number: receipts[1].blockNumber.toString() })
        // One refund carried both: from the vault to the refund address, their sum, on chain.
        const tx = await chain.client.getTransaction({ hash: late.refund_tx_hash })
        expect(tx.from.toLowerCase()).to.equal(vault.toLowerCase())
        expect(tx.to?.toLowerCase()).to.equal(refund.toLowerCase())
        expect(tx.value).to.equal(a + b)
        expect(late.refund_amount).to.equal('0.5')
        await quiet()
        expect(await balanceOf(chain, refund)).to.equal(a + b)
        expect(await balanceOf(chain, swap.deposit_address)).to.equal(0n)
        expect((await swapBody(swap.id)).late_deposits).to.have.length(1)
        const detected = (await eventsOf(bridge, swap.id)).filter((e) => e.event === 'late_deposit_detected')
        expect(detected.map((e) => e.data.transfers)).to.deep.equal([[{ tx_hash: hashes[0], amount: '0.3' }, { tx_hash: hashes[1], amount: '0.2' }]])
    })

    it('ERC-20: two extras sent after the swap completed, in two blocks, are one late deposit listing both, refunded together once', async function () {
        const { chain, stable, refund, vault, swap } = await stableSwap()
        const [first, a, b] = [parseUnits('30', 6), parseUnits('12', 6), parseUnits('7.5', 6)]
        await giveTokens(chain, 'STABLE', account(8).address, first + a + b)
        await send(chain, 8, swap.deposit_address, first, stable)
        await waitForStatus(bridge, swap.id, ['completed'], 180_000)
        const hashes = await twoTransfersInTwoBlocks(chain, 8, swap.deposit_address, [a, b], stable)
        const receipts = await Promise.all(hashes.map((hash) => chain.client.getTransactionReceipt({ hash })))
        const late = await refundedTogether(swap.id)
        expect(late.transfers).to.deep.equal([
            { tx_hash: hashes[0], amount: '12', block_number: receipts[0].blockNumber.toString() },
            { tx_hash: hashes[1], amount: '7.5', block_number: receipts[1].blockNumber.toString() },
        ])
        expect(late).to.include({ amount: '19.5', unattributed_amount: '0', tx_hash: null, refund_amount: '19.5' })
        // One gather and one refund of the sum, on chain.
        expect((await transferAmounts(chain, stable, swap.deposit_address, vault)).slice(1)).to.deep.equal([a + b])
        await quiet()
        expect(await transferAmounts(chain, stable, vault, refund)).to.deep.equal([a + b])
        expect(await balanceOf(chain, refund, stable)).to.equal(a + b)
        expect(await balanceOf(chain, swap.deposit_address, stable)).to.equal(0n)
    })

    it('EVM coin: 0.5 credited and gathered; 0.3 sent at deposit_detected and 0.2 after the gather are each refunded once', async function () {
        const { chain, refund, vault, swap } = await coinSwap()
        const vaultBefore = await balanceOf(chain, vault)
        const [first, before, after] = [parseUnits('0.5', 18), parseUnits('0.3', 18), parseUnits('0.2', 18)]
        await send(chain, 5, swap.deposit_address, first)
        await waitForStatus(bridge, swap.id, ['deposit_detected'], 60_000)
        const beforeHash = await send(chain, 5, swap.deposit_address, before)
        await waitForStatus(bridge, swap.id, ['vault_locking', 'vault_locked', 'payout_processing', 'completed'], 120_000)
        const gathered = await swapBody(swap.id)
        const gatherTx = await chain.client.getTransactionReceipt({ hash: gathered.gather_tx_hash })
        // The premise: the second deposit was in the chain before the gather was.
        const beforeReceipt = await chain.client.getTransactionReceipt({ hash: beforeHash })
        expect(beforeReceipt.blockNumber < gatherTx.blockNumber).to.equal(true)
        const afterHash = await send(chain, 5, swap.deposit_address, after)
        const afterReceipt = await chain.client.getTransactionReceipt({ hash: afterHash })
        expect(afterReceipt.blockNumber > gatherTx.blockNumber).to.equal(true)

        const done = await waitForStatus(bridge, swap.id, ['completed'], 120_000)
        // Credited and gathered: the first deposit alone (this chain charges no fees), on chain.
        expect(done.deposit_amount).to.equal('0.5')
        expect((await chain.client.getTransaction({ hash: done.gather_tx_hash })).value).to.equal(first)
        const late = await refundedExtras(swap.id, 1)
        // Each extra deposit refunded once: the refund address holds exactly their sum, paid by the
        // transactions the swap states, each from the vault to it.
        const stated = late.reduce((sum: bigint, l: any) => sum + parseUnits(l.refund_amount, 18), 0n)
        expect(stated).to.equal(before + after)
        expect(late.reduce((sum: bigint, l: any) => sum + parseUnits(l.amount, 18), 0n)).to.equal(before + after)
        for (const l of late) {
            const tx = await chain.client.getTransaction({ hash: l.refund_tx_hash })
            expect(tx.from.toLowerCase()).to.equal(vault.toLowerCase())
            expect(tx.to?.toLowerCase()).to.equal(refund.toLowerCase())
            expect(tx.value).to.equal(parseUnits(l.refund_amount, 18))
        }
        await quiet()
        expect(await balanceOf(chain, refund)).to.equal(before + after)
        expect(await balanceOf(chain, swap.deposit_address)).to.equal(0n)
        expect((await swapBody(swap.id)).late_deposits).to.have.length(late.length)
        // The vault kept the credited deposit and nothing more (less what a pool leg on this chain traded away).
        const trade = done.pool_trade
        const traded = trade?.chain === 'NATIVECHAIN' ? (await chain.client.getTransaction({ hash: trade.tx_hash })).value : 0n
        expect(await balanceOf(chain, vault)).to.equal(vaultBefore + first - traded)
        const events = (await eventsOf(bridge, swap.id)).map((e) => e.event)
        expect(events.filter((e) => e === 'late_deposit_refunded')).to.have.length(late.length)
        expect(events.filter((e) => e === 'late_deposit_detected')).to.have.length(late.length)
    })

    it('ERC-20: 30 STABLE credited and gathered; 20 sent at deposit_detected and 10 after the gather are each refunded once', async function () {
        const { chain, stable, refund, vault, swap } = await stableSwap()
        const [first, before, after] = [parseUnits('30', 6), parseUnits('20', 6), parseUnits('10', 6)]
        await giveTokens(chain, 'STABLE', account(8).address, first + before + after)
        await send(chain, 8, swap.deposit_address, first, stable)
        await waitForStatus(bridge, swap.id, ['deposit_detected'], 60_000)
        const beforeHash = await send(chain, 8, swap.deposit_address, before, stable)
        await waitForStatus(bridge, swap.id, ['vault_locking', 'vault_locked', 'payout_processing', 'completed'], 120_000)
        const gathered = await swapBody(swap.id)
        const gatherReceipt = await chain.client.getTransactionReceipt({ hash: gathered.gather_tx_hash })
        expect((await chain.client.getTransactionReceipt({ hash: beforeHash })).blockNumber < gatherReceipt.blockNumber).to.equal(true)
        await send(chain, 8, swap.deposit_address, after, stable)
        const done = await waitForStatus(bridge, swap.id, ['completed'], 120_000)
        expect(done.deposit_amount).to.equal('30')
        const late = await refundedExtras(swap.id, 1)
        // On chain: the swap's gather moved the credited 30; every other transfer into the vault from
        // the address went back out to the refund address, once.
        const intoVault = await transferAmounts(chain, stable, swap.deposit_address, vault)
        expect(intoVault[0]).to.equal(first)
        const refunded = await transferAmounts(chain, stable, vault, refund)
        expect(refunded.reduce((a, b) => a + b, 0n)).to.equal(before + after)
        expect(intoVault.slice(1).reduce((a, b) => a + b, 0n)).to.equal(before + after)
        expect(refunded).to.have.length(late.length)
        await quiet()
        expect(await transferAmounts(chain, stable, vault, refund)).to.have.length(late.length)
        expect(late.reduce((sum: bigint, l: any) => sum + parseUnits(l.refund_amount, 6), 0n)).to.equal(before + after)
        expect(await balanceOf(chain, refund, stable)).to.equal(before + after)
        expect(await balanceOf(chain, swap.deposit_address, stable)).to.equal(0n)
    })

    it('BITCOIN: only the credited deposit\'s outputs are gathered; an extra output before the gather and one after it are each refunded once', async function () {
        const { refund, swap } = await btcSwap()
        // The credited deposit is below the route's minimum: the swap fails at the rate lock and
        // refunds it, which gathers it first. Nothing mines unless the test says so.
        const credited = btc.ledger.fund(swap.deposit_address, 20_000n)
        btc.ledger.mine(1)
        await waitFor('the deposit detected', async () => (await swapBody(swap.id)).status !== 'pending_deposit' || undefined, 60_000, 200)
        const before = btc.ledger.fund(swap.deposit_address, 1_000_000n)
        btc.ledger.mine(1)
        const failed = await waitFor('the swap refunded', async () => {
            btc.ledger.mine(1)
            const body = await swapBody(swap.id)
            return body.refund_status === 'sent' ? body : undefined
        }, 120_000, 300)
        expect(failed.status).to.equal('failed')
        expect(failed.deposit_tx_hash).to.equal(credited.txid)
        // The swap's gather spent the credited output only; the extra one was not touched by it.
        expect(btc.ledger.spender(credited.txid, credited.vout)?.txid).to.equal(failed.gather_tx_hash)
        expect(btc.ledger.spender(before.txid, before.vout)?.txid).to.not.equal(failed.gather_tx_hash)
        // Once the first extra is recorded alone (the watch reads the address's balance: two outputs
        // there at once would be one late deposit of their sum).
        await waitFor('the first extra deposit recorded', async () => (await swapBody(swap.id)).late_deposits.length === 1 || undefined, 60_000, 200)
        const after = btc.ledger.fund(swap.deposit_address, 700_000n)
        btc.ledger.mine(1)
        const late = await refundedExtras(swap.id, 2, () => btc.ledger.mine(1))
        expect(late.map((l: any) => parseUnits(l.amount, 8))).to.deep.equal([1_000_000n, 700_000n])
        expect(late.map((l: any) => l.tx_hash)).to.deep.equal([before.txid, after.txid])
        // Each extra came back once (less its gather's fee), to the refund address, next to the credited deposit's refund.
        await quiet()
        const received = outputsOf(refund)
        const refunds = [failed.refund_tx_hash, ...late.map((l: any) => l.refund_tx_hash)]
        expect(received.map((o) => o.txid).sort()).to.deep.equal([...refunds].sort())
        const stated = parseUnits(failed.refund_amount, 8) + late.reduce((sum: bigint, l: any) => sum + parseUnits(l.refund_amount, 8), 0n)
        expect(received.reduce((sum, o) => sum + o.value, 0n)).to.equal(stated)
        for (const l of late) {
            const amount = parseUnits(l.amount, 8)
            const back = parseUnits(l.refund_amount, 8)
            // The gather's fee, a few thousand satoshi at most, is all an extra deposit loses.
            expect(back < amount && amount - back < 10_000n).to.equal(true)
        }
        expect(outputsOf(swap.deposit_address)).to.deep.equal([])
        const events = (await eventsOf(bridge, swap.id)).map((e) => e.event)
        expect(events.filter((e) => e === 'late_deposit_refunded')).to.have.length(2)
        expect(events.filter((e) => e === 'refund_sent')).to.have.length(1)
    })

    it('BITCOIN: two extra outputs in one block after the swap ended are one late deposit listing both transactions, refunded together once', async function () {
        const { refund, swap } = await btcSwap()
        // Below the route's minimum: the swap fails and refunds the credited deposit, then it has ended.
        const credited = btc.ledger.fund(swap.deposit_address, 20_000n)
        btc.ledger.mine(1)
        const failed = await waitFor('the swap refunded', async () => {
            btc.ledger.mine(1)
            const body = await swapBody(swap.id)
            return body.refund_status === 'sent' ? body : undefined
        }, 120_000, 300)
        expect(failed.deposit_tx_hash).to.equal(credited.txid)
        // Two transactions, one block: the watch sees them at once.
        const a = btc.ledger.fund(swap.deposit_address, 400_000n)
        const b = btc.ledger.fund(swap.deposit_address, 300_000n)
        expect(a.txid).to.not.equal(b.txid)
        btc.ledger.mine(1)
        const [late] = await refundedExtras(swap.id, 1, () => btc.ledger.mine(1))
        expect((await swapBody(swap.id)).late_deposits).to.have.length(1)
        const byHash = (x: { tx_hash: string }, y: { tx_hash: string }) => (x.tx_hash < y.tx_hash ? -1 : 1)
        expect(late.transfers.map((t: any) => ({ tx_hash: t.tx_hash, amount: t.amount })).sort(byHash)).to.deep.equal(
            [{ tx_hash: a.txid, amount: '0.004' }, { tx_hash: b.txid, amount: '0.003' }].sort(byHash))
        expect(new Set(late.transfers.map((t: any) => t.block_number)).size).to.equal(1)
        expect(late).to.include({ amount: '0.007', unattributed_amount: '0', tx_hash: null })
        // One refund carried both (less the one gather's fee), and it is all the refund address got besides the credited deposit's refund.
        await quiet()
        const received = outputsOf(refund)
        expect(received.map((o) => o.txid).sort()).to.deep.equal([failed.refund_tx_hash, late.refund_tx_hash].sort())
        const back = received.filter((o) => o.txid === late.refund_tx_hash).reduce((sum, o) => sum + o.value, 0n)
        expect(back).to.equal(parseUnits(late.refund_amount, 8))
        expect(back < 700_000n && 700_000n - back < 10_000n).to.equal(true)
        expect(outputsOf(swap.deposit_address)).to.deep.equal([])
    })
})
