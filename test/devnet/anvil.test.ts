import { expect } from 'chai'
import { createPublicClient, createWalletClient, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startAnvil } from '../../devnet/anvil'
import { freePort } from '../support/ports'

describe('devnet anvil', () => {
    it('answers eth_chainId 0xbc1 and mines a zero-gas-price transaction from an account holding no coin', async () => {
        const anvil = await startAnvil({ port: await freePort(), chainId: 3009 })
        try {
            const res = await fetch(anvil.url, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
            })
            expect(((await res.json()) as { result: string }).result).to.equal('0xbc1')

            const client = createPublicClient({ transport: http(anvil.url) })
            const pauper = privateKeyToAccount(generatePrivateKey())
            expect(await client.getBalance({ address: pauper.address })).to.equal(0n)
            const wallet = createWalletClient({ account: pauper, transport: http(anvil.url) })
            const hash = await wallet.sendTransaction({
                chain: null,
                to: pauper.address,
                value: 0n,
                maxFeePerGas: 0n,
                maxPriorityFeePerGas: 0n,
            })
            const receipt = await client.waitForTransactionReceipt({ hash })
            expect(receipt.status).to.equal('success')
            expect(receipt.effectiveGasPrice).to.equal(0n)
        } finally {
            await anvil.stop()
        }
    })
})
