import { Pool } from 'pg'
import {
    Account, Address, createWalletClient, getAddress, Hash, Hex, http, keccak256, parseEther, parseGwei, parseUnits,
    PublicClient, toHex, TransactionReceipt,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis } from '../../abi'
import { NativeContracts } from '../../common/config'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { deployContract, deployPlatformToken, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { ApiProcess, startApi } from './api'
import { CHAIN_ID, headHash, startTestChain, TestChain } from './chain'
import { stopAfterRun } from './workers'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from './indexer'
import { createTestDatabase } from './postgres'

/**
 * The whole chain-data stack, started once per mocha run and shared by every suite that asks for
 * it: embedded Postgres (a database of its own), anvil with our contracts and two days of the demo
 * history, the real indexer synced to the head, and the real api process.
 *
 * On top of the seeded history the fixture adds a few deterministic things the seed lacks, so the
 * API tests can reach every shape and every pagination path:
 * - transactions that pay a fee (the seed pays none), one a coin transfer, one a GOLD transfer;
 * - a contract that is not ours (hand-assembled bytecode, so the indexer cannot verify it: every
 *   artifact under abi/, abi/test included, is verified by the indexer);
 * - an ERC-721 (DemoNft) mint and an ERC-20 whose name() and decimals() revert (null name);
 * - 55 filler tokens ("Filler Token 00"…), so /tokens and a search for them have more than one
 *   page (ties on holders_count, ordered by name);
 * - one transaction with 60 STABLE transfers to 60 fresh addresses (Disperse): more than 50 logs and
 *   token transfers in one transaction, and more than 50 STABLE holders with equal balances;
 * - one block holding 60 transactions, so a block's transaction list has more than one page.
 *
 * The chain mines only when a transaction is sent (anvil automine): after this setup the database
 * changes only when a test sends a transaction, and `send` waits until the indexer has its block.
 */

export interface StackExtras {
    /** account 1 → account 2, 1.5 coin, effective gas price 2 gwei. */
    feeCoinTransfer: Hash
    /** deployer → account 3, 12.5 GOLD, effective gas price 2 gwei. */
    feeTokenTransfer: Hash
    unverified: { address: Address; transactionHash: Hash }
    nft: { address: Address; mintTransaction: Hash; tokenId: bigint }
    nullName: { address: Address; mintTransaction: Hash }
    fillerTokens: Address[]
    disperse: { address: Address; transactionHash: Hash; recipients: Address[]; amount: bigint }
    bigBlock: { number: number; hash: Hash; transactions: Hash[] }
}

export interface Stack {
    chain: TestChain
    /** viem client of the chain */
    client: PublicClient
    contracts: NativeContracts
    /** symbol → address of the seeded tokens (WNATIVE, STABLE, GOLD, SILVER, TAXI) */
    tokens: Record<string, Address>
    /** "A/B" → pair address */
    pairs: Record<string, Address>
    databaseUrl: string
    /** a pool on the indexed database, for comparing answers with the rows */
    db: Pool
    indexer: IndexerProcess
    api: ApiProcess
    /** http://127.0.0.1:<port>: /api/v2 and /socket/v2/websocket live here */
    explorerUrl: string
    extras: StackExtras
    account(index: number): Account
    /** Sends a transaction, waits for its receipt and until the indexer has its block. */
    send(account: Account, tx: { to?: Address; data?: Hex; value?: bigint; gas?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }): Promise<TransactionReceipt>
    /** Waits until the indexer has the block with this hash. */
    waitIndexed(blockHash: string): Promise<void>
    stop(): Promise<void>
}

/** The unverifiable contract: init code that returns the 10-byte runtime `return 42`. */
export const UNVERIFIED_INIT_CODE: Hex = '0x600a600c600039600a6000f3602a60005260206000f3'
export const UNVERIFIED_RUNTIME_CODE: Hex = '0x602a60005260206000f3'

const account = (index: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index })

let started: Promise<Stack> | undefined

/** The shared stack; the first call starts it (a few minutes), later calls get the same one. */
export function getStack(): Promise<Stack> {
    started ??= startStack()
    return started
}

async function startStack(): Promise<Stack> {
    const chain = await startTestChain({ seedDays: 2 })
    let indexer: IndexerProcess | undefined
    let api: ApiProcess | undefined
    let db: Pool | undefined
    try {
        const extras = await addExtras(chain)
        const databaseUrl = await createTestDatabase('chainapi')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer, 300_000)
        api = await startApi({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        db = new Pool({ connectionString: databaseUrl, max: 4 })
        // The cluster is stopped by a root hook that may run before ours: idle clients then error.
        db.on('error', () => undefined)
        const idx = indexer
        const waitIndexed = (blockHash: string) => waitForIndexedBlock(databaseUrl, blockHash, idx, 120_000)
        const stack: Stack = {
            chain,
            client: chain.client,
            contracts: chain.contracts,
            tokens: chain.seeded!.tokens,
            pairs: chain.seeded!.pairs,
            databaseUrl,
            db,
            indexer,
            api,
            explorerUrl: api.explorerUrl,
            extras,
            account,
            waitIndexed,
            async send(from, tx) {
                const wallet = createWalletClient({ account: from, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
                const hash = await wallet.sendTransaction({
                    to: tx.to ?? null,
                    data: tx.data,
                    value: tx.value,
                    gas: tx.gas ?? 3_000_000n,
                    maxFeePerGas: tx.maxFeePerGas ?? 0n,
                    maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n,
                } as never)
                const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
                await waitIndexed(receipt.blockHash)
                return receipt
            },
            async stop() {
                await db?.end().catch(() => undefined)
                await api?.stop()
                await indexer?.stop()
                await chain.stop()
            },
        }
        return stack
    } catch (err) {
        await db?.end().catch(() => undefined)
        await api?.stop()
        await indexer?.stop()
        await chain.stop()
        throw err
    }
}

async function addExtras(chain: TestChain): Promise<StackExtras> {
    const { client, url, contracts } = chain
    const tokens = chain.seeded!.tokens
    const deployer = account(0)
    const payer = account(1)
    const holder = account(3)
    const viemChain = devnetChain(CHAIN_ID, url)
    const wallet = (a: Account) => createWalletClient({ account: a, chain: viemChain, transport: http(url) })
    const mined = async (hash: Hash) => {
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        if (receipt.status !== 'success') throw new Error(`stack setup transaction ${hash} reverted`)
        return receipt
    }
    const FEES = { maxFeePerGas: parseGwei('3'), maxPriorityFeePerGas: parseGwei('2') }

    const feeCoinTransfer = await wallet(payer).sendTransaction({ to: account(2).address, value: parseEther('1.5'), gas: 21_000n, ...FEES })
    await mined(feeCoinTransfer)
    const feeTokenTransfer = await wallet(deployer).writeContract({
        address: tokens.GOLD, abi: abis.PlatformToken, functionName: 'transfer', args: [holder.address, parseUnits('12.5', 18)], gas: 200_000n, ...FEES,
    })
    await mined(feeTokenTransfer)

    const deployUnverified = await wallet(payer).sendTransaction({ data: UNVERIFIED_INIT_CODE, gas: 200_000n, ...ZERO_FEES } as never)
    const unverifiedReceipt = await mined(deployUnverified)

    const nft = await deployContract(url, CHAIN_ID, deployer, 'DemoNft', [])
    const nftMint = await wallet(deployer).writeContract({ address: nft.address, abi: abis.DemoNft, functionName: 'mint', args: [holder.address, 42n], gas: 300_000n, ...ZERO_FEES })
    await mined(nftMint)
    const nullName = await deployContract(url, CHAIN_ID, deployer, 'RevertingNameToken', [])
    const nullMint = await wallet(deployer).writeContract({ address: nullName.address, abi: abis.RevertingNameToken, functionName: 'mint', args: [holder.address, 7n], gas: 200_000n, ...ZERO_FEES })
    await mined(nullMint)

    const fillerTokens: Address[] = []
    for (let i = 0; i < 55; i++) {
        const n = String(i).padStart(2, '0')
        fillerTokens.push(await deployPlatformToken(url, CHAIN_ID, deployer, {
            name: `Filler Token ${n}`, symbol: `FIL${n}`, decimals: 18, totalSupply: 1_000n * 10n ** 18n, ammFactory: contracts.factory,
        }))
    }

    const disperse = await deployContract(url, CHAIN_ID, deployer, 'Disperse', [])
    await mined(await wallet(deployer).writeContract({ address: tokens.STABLE, abi: abis.Stable, functionName: 'approve', args: [disperse.address, 2n ** 255n], gas: 200_000n, ...ZERO_FEES }))
    const recipients = Array.from({ length: 60 }, (_, i) => getAddress(`0x${keccak256(toHex(`chain-api-recipient-${i}`)).slice(26)}`))
    const amount = 1_000_000n
    const disperseTx = await wallet(deployer).writeContract({
        address: disperse.address, abi: abis.Disperse, functionName: 'disperseToken',
        args: [tokens.STABLE, recipients, recipients.map(() => amount)], gas: 8_000_000n, ...ZERO_FEES,
    })
    await mined(disperseTx)

    // 60 coin transfers mined into one block.
    const nonce = await client.getTransactionCount({ address: payer.address, blockTag: 'pending' })
    await client.request({ method: 'evm_setAutomine' as any, params: [false] as any })
    const bigBlockTxs: Hash[] = []
    try {
        for (let i = 0; i < 60; i++) {
            bigBlockTxs.push(await wallet(payer).sendTransaction({
                to: recipients[i], value: BigInt(i + 1) * 1_000_000_000n, nonce: nonce + i, gas: 21_000n, ...ZERO_FEES,
            }))
        }
        await client.request({ method: 'evm_mine' as any, params: [] as any })
    } finally {
        await client.request({ method: 'evm_setAutomine' as any, params: [true] as any })
    }
    const last = await mined(bigBlockTxs[bigBlockTxs.length - 1])
    const first = await mined(bigBlockTxs[0])
    if (first.blockHash !== last.blockHash) throw new Error('the 60 transactions did not land in one block')

    return {
        feeCoinTransfer,
        feeTokenTransfer,
        unverified: { address: getAddress(unverifiedReceipt.contractAddress!), transactionHash: deployUnverified },
        nft: { address: nft.address, mintTransaction: nftMint, tokenId: 42n },
        nullName: { address: nullName.address, mintTransaction: nullMint },
        fillerTokens,
        disperse: { address: disperse.address, transactionHash: disperseTx, recipients, amount },
        bigBlock: { number: Number(last.blockNumber), hash: last.blockHash, transactions: bigBlockTxs },
    }
}

stopAfterRun(async () => {
    if (!started) return
    const stack = await started.catch(() => undefined)
    started = undefined
    await stack?.stop()
})
