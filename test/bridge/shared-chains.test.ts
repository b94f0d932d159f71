import { expect } from 'chai'
import { createWalletClient, http, parseEther, parseGwei, toHex } from 'viem'
import { devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { account, BridgeChains, send, startBridgeChains } from './support'

/**
 * The worker's shared bridge chains (support.ts): whatever a file did to them, the next file gets
 * them as provisioned, with a clock, base fee, gas limit, mempool and mining of a fresh chain.
 */
describe('bridge test chains: shared by the files of a worker, reset for each', function () {
    this.timeout(120_000)

    it('hands the next file the provisioned state, not what the last file left', async () => {
        const first = await startBridgeChains()
        const { NATIVECHAIN: native, BSC: bsc, ETHEREUM: eth, POLYGON: polygon } = first.chains
        const rpc = (chain: { client: any }, method: string, params: unknown[] = []) => chain.client.request({ method, params })
        const receiver = account(7).address
        const startHeight = await native.client.getBlockNumber()
        const startBalance = await bsc.client.getBalance({ address: receiver })
        const gasLimit = (await bsc.client.getBlock()).gasLimit

        // What a file may leave behind: a payment, a clock an hour ahead, a high base fee, a lower
        // gas limit, and (mining paused by `stop`) a transaction still pending.
        await send(bsc, 0, receiver, parseEther('3'))
        await rpc(polygon, 'evm_setNextBlockTimestamp', [Math.floor(Date.now() / 1000) + 3600])
        await rpc(polygon, 'evm_mine')
        await rpc(eth, 'anvil_setNextBlockBaseFeePerGas', [toHex(parseGwei('50'))])
        await rpc(eth, 'evm_mine')
        await rpc(bsc, 'evm_setBlockGasLimit', [toHex(100_000n)])
        await rpc(native, 'anvil_mine', ['0x20'])
        await first.stop()
        const wallet = createWalletClient({ account: account(1), chain: devnetChain(native.chainId, native.url), transport: http(native.url) })
        const pending = await wallet.sendTransaction({ to: receiver, value: 1n, ...ZERO_FEES })
        expect(await bsc.client.getBalance({ address: receiver })).to.equal(startBalance + parseEther('3'))

        const next: BridgeChains = await startBridgeChains()
        expect(next.chains.NATIVECHAIN.url, 'the same anvils').to.equal(native.url)
        expect(Number(await native.client.getBlockNumber()), 'the provisioned height').to.be.lessThan(Number(startHeight) + 5)
        expect(await bsc.client.getBalance({ address: receiver }), 'the payment undone').to.equal(startBalance)
        expect(await native.client.request({ method: 'eth_getTransactionByHash', params: [pending] }), 'the pending transaction dropped').to.equal(null)

        // Mining again, a block a second, each as a fresh chain would mine it.
        const height = await polygon.client.getBlockNumber()
        await new Promise((resolve) => setTimeout(resolve, 2500))
        const block = await polygon.client.getBlock()
        expect(Number(block.number), 'mining again').to.be.greaterThan(Number(height))
        expect(Number(block.timestamp), 'the clock back to now').to.be.within(Date.now() / 1000 - 10, Date.now() / 1000 + 10)
        expect((await eth.client.getBlock()).baseFeePerGas, 'no base fee').to.equal(0n)
        expect((await bsc.client.getBlock()).gasLimit, 'the gas limit').to.equal(gasLimit)
        await next.stop()
    })
})
