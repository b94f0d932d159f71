import { expect } from 'chai'
import { getContractAddress } from 'viem'
import { ApiProcess, startApi } from '../../support/api'
import { UNVERIFIED_INIT_CODE } from '../../support/stack'
import { expectStatus, stack, v2 } from './helpers'

describe('chain API: rendered list items against a live chain', function () {
    this.timeout(300_000)
    let uncached: ApiProcess | undefined

    before(async function () {
        const s = await stack()
        uncached = await startApi({ databaseUrl: s.databaseUrl, rpcUrl: s.chain.url, contracts: s.contracts, env: { CHAIN_API_ITEM_CACHE_MB: '0' } })
    })

    after(async function () {
        await uncached?.stop()
    })

    it('every list answers byte for byte what an api without the cache answers, the first time and when reused', async function () {
        const s = await stack()
        const first = await v2('/transactions')
        const blocks = await v2('/blocks')
        const bigBlock = await v2(`/blocks/${s.extras.bigBlock.number}/transactions`)
        const holders = await v2(`/tokens/${s.tokens.STABLE}/holders`)
        const miner = (blocks.body.items[0].miner.hash as string).toLowerCase()
        const paths = [
            '/transactions',
            `/transactions?${new URLSearchParams(first.body.next_page_params)}`,
            '/blocks',
            `/blocks?${new URLSearchParams(blocks.body.next_page_params)}`,
            `/blocks/${s.extras.bigBlock.number}/transactions`,
            `/blocks/${s.extras.bigBlock.number}/transactions?${new URLSearchParams(bigBlock.body.next_page_params)}`,
            `/addresses/${s.account(0).address}/transactions`,
            `/addresses/${s.account(0).address}/transactions?sort=value&order=asc`,
            `/addresses/${s.account(2).address}/transactions?filter=to`,
            `/addresses/${miner}/blocks-validated`,
            `/tokens/${s.tokens.STABLE}/holders`,
            `/tokens/${s.tokens.STABLE}/holders?${new URLSearchParams(holders.body.next_page_params)}`,
            '/main-page/transactions',
            '/main-page/blocks',
        ]
        for (const path of paths) {
            const [fresh, reused, reference] = [await v2(path), await v2(path), await fetch(`${uncached!.explorerUrl}/api/v2${path}`)]
            expectStatus(fresh, 200, path)
            expect(reference.status, path).to.equal(200)
            const referenceText = await reference.text()
            expect(JSON.parse(referenceText).items ?? JSON.parse(referenceText), path).to.not.be.empty
            expect(fresh.text, `${path}, first answer`).to.equal(referenceText)
            expect(reused.text, `${path}, answered again`).to.equal(referenceText)
        }
    })

    it('an item rendered before an address became a contract is rendered again once the head moves: to.is_contract, contract_call', async function () {
        const s = await stack()
        // A contract's address is known before its creation (sender, nonce): pay it first, deploy after.
        const deployer = s.account(37)
        const future = getContractAddress({ from: deployer.address, nonce: BigInt(await s.client.getTransactionCount({ address: deployer.address })) })
        const payment = await s.send(s.account(1), { to: future, value: 1n })
        const transfer = async () => {
            const res = expectStatus(await v2(`/addresses/${future}/transactions`), 200, 'the future contract\'s transactions')
            return res.body.items.find((t: { hash: string }) => t.hash === payment.transactionHash)
        }
        // The api learns of a new head by NOTIFY, or within half a second by reading it.
        const eventually = async (done: (item: any) => boolean) => {
            let item = await transfer()
            for (const deadline = Date.now() + 10_000; !done(item) && Date.now() < deadline;) {
                await new Promise((resolve) => setTimeout(resolve, 100))
                item = await transfer()
            }
            return item
        }
        const before = await eventually((t) => t.confirmations === 1)
        expect(before.confirmations, 'the payment is in the head block').to.equal(1)
        expect(before.to.is_contract).to.equal(false)
        expect(before.transaction_types).to.deep.equal(['coin_transfer'])
        expect((await transfer()).to.is_contract, 'answered again at the same head').to.equal(false)

        const creation = await s.send(deployer, { data: UNVERIFIED_INIT_CODE })
        expect(creation.contractAddress?.toLowerCase()).to.equal(future.toLowerCase())
        const after = await eventually((t) => t.confirmations === 2)
        expect(after.confirmations, 'the creation is the next block').to.equal(2)
        expect(after.to.is_contract).to.equal(true)
        expect(after.transaction_types).to.deep.equal(['coin_transfer', 'contract_call'])
    })
})
