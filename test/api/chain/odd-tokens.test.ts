import { expect } from 'chai'
import { Account, Address, createWalletClient, getAddress, http, parseAbi, PublicClient } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { z } from 'zod'
import { DEV_MNEMONIC } from '../../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../../devnet/deploy'
import { startRpcLimiter } from '../../../devnet/rpc-limits'
import { getShaped } from '../../support/api'
import { CHAIN_ID } from '../../support/chain'
import { IndexedChain, startIndexedChain } from '../../support/indexed-chain'
import { freePort } from '../../support/ports'
import * as S from './shapes'

const TOKEN = parseAbi([
    'function mint(address to, uint256 value)',
    'function transfer(address to, uint256 value) returns (bool)',
    'function balanceOf(address) view returns (uint256)',
    'function totalSupply() view returns (uint256)',
    'function rebase(uint256 newIndex)',
])
const FEE_COLLECTOR = '0xfEE0000000000000000000000000000000000000'
const E18 = 10n ** 18n
const ODD = ['Bytes32Token', 'NoMetadataToken', 'AbsurdDecimalsToken', 'FeeOnTransferToken', 'RebasingToken'] as const
type Odd = (typeof ODD)[number]

const account = (index: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index })

/**
 * Tokens a real chain carries and our devnet's do not: metadata as bytes32 or missing, absurd
 * decimals, a fee on every transfer, balances that rebase without a log. The indexer must index
 * past each and every page about them must answer (docs/chain-api.md#odd-tokens). The indexer and
 * the api reach the chain through the devnet's limiting proxy, as under `npm start`.
 */
describe('chain API: odd tokens give a page', function () {
    this.timeout(300_000)
    let chain: IndexedChain
    const token = {} as Record<Odd, Address>
    const holder = account(3)
    const other = account(4)

    const get = <T extends z.ZodTypeAny>(path: string, schema: T) => getShaped(chain.api, path, schema)

    async function seed({ url, client }: { url: string; client: PublicClient }) {
        const wallet = (a: Account) => createWalletClient({ account: a, chain: devnetChain(CHAIN_ID, url), transport: http(url) })
        const send = async (from: Account, address: Address, functionName: 'mint' | 'transfer' | 'rebase', args: readonly unknown[]) => {
            const hash = await wallet(from).writeContract({ address, abi: TOKEN, functionName, args: args as never, gas: 300_000n, ...ZERO_FEES })
            const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
            if (receipt.status !== 'success') throw new Error(`${functionName} on ${address} reverted`)
        }
        for (const name of ODD) token[name] = (await deployContract(url, CHAIN_ID, account(0), name, [])).address
        for (const name of ODD) {
            await send(account(0), token[name], 'mint', [holder.address, 1000n * E18])
            await send(holder, token[name], 'transfer', [other.address, 100n * E18])
        }
        // Every holder's balance doubles, and no log says so.
        await send(account(0), token.RebasingToken, 'rebase', [2n * E18])
    }

    before(async () => {
        chain = await startIndexedChain({
            name: 'oddtokens',
            seed,
            rpc: async (upstream) => startRpcLimiter({ port: await freePort(), upstream, limits: { getLogsMaxBlocks: 10_000, batchMax: 100 } }),
            indexerEnv: { LOG_LEVEL: 'info' },
        })
    })

    after(async () => {
        await chain?.stop()
    })

    it('indexes past every odd token, through a node that refuses what public nodes refuse, with the unknown metadata null', async () => {
        const { rows } = await chain.db.query('SELECT id, name, symbol, decimals FROM token WHERE id = ANY($1)', [ODD.map((n) => token[n].toLowerCase())])
        const byName = Object.fromEntries(ODD.map((n) => [n, rows.find((r) => r.id === token[n].toLowerCase())]))
        expect(byName.Bytes32Token).to.include({ name: 'Bytes Token', symbol: 'BYT', decimals: 18 })
        expect(byName.NoMetadataToken).to.include({ name: null, symbol: null, decimals: null })
        expect(byName.AbsurdDecimalsToken).to.include({ name: 'Absurd Decimals', symbol: 'ABSD', decimals: 255 })
        expect(byName.FeeOnTransferToken).to.include({ symbol: 'FEE', decimals: 18 })
        expect(byName.RebasingToken).to.include({ symbol: 'REB', decimals: 18 })
        expect(chain.indexer.output()).not.to.include('the node refused a JSON-RPC batch')
    })

    it('/tokens/{h}: 200 for each, name, symbol and decimals null where the token has none, 255 decimals as they are', async () => {
        const none = await get(`/tokens/${token.NoMetadataToken}`, S.Token)
        expect(none).to.include({ name: null, symbol: null, decimals: null, type: 'ERC-20', total_supply: (1000n * E18).toString(), holders_count: '2' })
        expect(none.address_hash).to.equal(getAddress(token.NoMetadataToken))
        const absurd = await get(`/tokens/${token.AbsurdDecimalsToken}`, S.Token)
        expect(absurd).to.include({ name: 'Absurd Decimals', symbol: 'ABSD', decimals: '255', total_supply: (1000n * E18).toString() })
        expect(await get(`/tokens/${token.Bytes32Token}`, S.Token)).to.include({ name: 'Bytes Token', symbol: 'BYT', decimals: '18' })
        for (const name of ODD) await get(`/tokens/${token[name]}/counters`, S.TokenCounters)
    })

    it('/tokens/{h}/holders, /tokens/{h}/transfers, /addresses/{h}/token-balances and token-transfers answer 200 for each', async () => {
        const balances = await get(`/addresses/${holder.address}/token-balances`, z.array(S.TokenBalance))
        const transfers = await get(`/addresses/${holder.address}/token-transfers`, S.page(S.TokenTransfer))
        for (const name of ODD) {
            const holders = await get(`/tokens/${token[name]}/holders`, S.page(S.Holder))
            expect(holders.items.length, `${name} holders`).to.be.greaterThan(0)
            const list = await get(`/tokens/${token[name]}/transfers`, S.page(S.TokenTransfer))
            expect(list.items.length, `${name} transfers`).to.be.greaterThan(1)
            expect(balances.map((b) => b.token.address_hash), `${name} in the holder's balances`).to.include(getAddress(token[name]))
            expect(transfers.items.map((t) => t.token.address_hash), `${name} in the holder's transfers`).to.include(getAddress(token[name]))
        }
        const noMetadata = transfers.items.find((t) => t.token.address_hash === getAddress(token.NoMetadataToken))!
        expect(noMetadata.total).to.deep.equal({ value: (100n * E18).toString(), decimals: null })
        expect(noMetadata.token).to.include({ name: null, symbol: null, decimals: null })
        const absurd = balances.find((b) => b.token.address_hash === getAddress(token.AbsurdDecimalsToken))!
        expect(absurd.value).to.equal((900n * E18).toString())
        expect(absurd.token.decimals).to.equal('255')
    })

    it('/tokens, /search and the Etherscan-style token lists answer for them too', async () => {
        const list = await get('/tokens', S.page(S.Token))
        expect(list.items.map((t) => t.address_hash)).to.include.members(ODD.map((n) => getAddress(token[n])))
        for (const q of ['ABSD', 'BYT', token.NoMetadataToken]) {
            const found = await get(`/search?q=${q}`, S.SearchPage)
            expect(found.items.length, `search ${q}`).to.be.greaterThan(0)
        }
        const res = await fetch(`${chain.api.explorerUrl}/api?module=account&action=tokentx&address=${holder.address}`)
        expect(res.status).to.equal(200)
        const { status, result } = (await res.json()) as { status: string; result: { contractAddress: string; tokenDecimal: string; tokenName: string | null; tokenSymbol: string | null }[] }
        expect(status).to.equal('1')
        const noMetadata = result.filter((r) => r.contractAddress === token.NoMetadataToken.toLowerCase())
        expect(noMetadata).to.have.length(2)
        // As Blockscout renders them: to_string(nil) for the decimals, nil for the name and symbol.
        expect(noMetadata[0]).to.include({ tokenDecimal: '', tokenName: null, tokenSymbol: null })
    })

    it('fee-on-transfer: the fee is its own Transfer log, so the balances shown equal balanceOf', async () => {
        const holders = await get(`/tokens/${token.FeeOnTransferToken}/holders`, S.page(S.Holder))
        const shown = Object.fromEntries(holders.items.map((h) => [h.address.hash, h.value]))
        for (const address of [holder.address, other.address, FEE_COLLECTOR] as Address[]) {
            const onChain = await chain.client.readContract({ address: token.FeeOnTransferToken, abi: TOKEN, functionName: 'balanceOf', args: [address] })
            expect(shown[getAddress(address)], `balance of ${address}`).to.equal(onChain.toString())
        }
        expect(shown[getAddress(other.address)]).to.equal((98n * E18).toString())
    })

    it('rebasing: the balances shown are those the Transfer logs add up to, not balanceOf after a rebase that logged nothing', async () => {
        const holders = await get(`/tokens/${token.RebasingToken}/holders`, S.page(S.Holder))
        const shown = Object.fromEntries(holders.items.map((h) => [h.address.hash, h.value]))
        expect(shown[getAddress(holder.address)]).to.equal((900n * E18).toString())
        expect(shown[getAddress(other.address)]).to.equal((100n * E18).toString())
        const onChain = await chain.client.readContract({ address: token.RebasingToken, abi: TOKEN, functionName: 'balanceOf', args: [holder.address] })
        expect(onChain).to.equal(1800n * E18)
        expect((await get(`/tokens/${token.RebasingToken}`, S.Token)).total_supply).to.equal((1000n * E18).toString())
    })
})
