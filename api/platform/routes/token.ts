import { Request, Response } from 'express'
import { Address, encodeDeployData, encodeFunctionData, getAddress } from 'viem'
import { z } from 'zod'
import { loadArtifact, platformTokenAbi } from '../../../abi'
import { platformTokenConstructorArgs } from '../../../common/platform-token'
import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { withIdempotencyKey } from '../../../common/service/idempotency'
import { formatAmount, parsePositiveAmount } from '../amounts'
import {
    baseUnits, CHAIN_ANSWERS, checksummedAddress, inData, PASSWORD, PASSWORD_ANSWERS, SEND_ANSWERS, TOKEN_ANSWERS, txHash, wholeTokens,
} from '../api-doc'
import { DeployedToken, findDeployedToken, insertDeployedToken, listDeployedTokens } from '../deployed-tokens'
import { badRequest, HttpError, parseInput, sendData } from '../http'
import { PlatformServices } from '../services'
import { address, amount, integer, nonZeroAddress, userId } from '../validation'

/** PlatformToken's own bound on each fee: 2500 basis points, 25%. */
export const MAX_FEE_BPS = 2500

const printable = (max: number) =>
    z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')

const DeployInput = z.object({
    user_id: userId,
    tokenName: printable(64),
    tokenSymbol: printable(16),
    tokenDescription: z.string().max(1000, 'must be at most 1000 characters').optional(),
    totalSupply: amount,
    decimals: integer(0, 18).optional(),
    buyingFee: integer(0, MAX_FEE_BPS).optional(),
    sellingFee: integer(0, MAX_FEE_BPS).optional(),
    feeAddress: nonZeroAddress.optional(),
    mintable: z.boolean().optional(),
    destinationAddress: nonZeroAddress,
    /** The user's wallet that deploys (pays gas, owns the token); the oldest one when omitted. */
    address: address.optional(),
})

const TokenInfoInput = z.object({ address, user_id: userId })
const ListInput = z.object({ user_id: userId, limit: integer(1, 1000).default(100), offset: integer(0, 1_000_000_000).default(0) })

const Deployed = z.looseObject({
    contractAddress: checksummedAddress,
    transactionHash: txHash,
    transferHash: txHash,
    deployer: checksummedAddress,
    name: z.string(),
    symbol: z.string(),
    decimals: z.number().int(),
    totalSupply: baseUnits,
    supply: wholeTokens,
})
/** deployedView: a token deployed through the platform, as stored. */
const DeployedRecord = z.looseObject({
    contractAddress: checksummedAddress,
    name: z.string(),
    symbol: z.string(),
    description: z.string(),
    decimals: z.number().int(),
    totalSupply: baseUnits,
    supply: wholeTokens,
    buyingFee: z.number().int(),
    sellingFee: z.number().int(),
    feeAddress: checksummedAddress.nullable(),
    mintable: z.boolean(),
    deployer: checksummedAddress,
    destinationAddress: checksummedAddress,
    transactionHash: txHash,
    transferHash: txHash.nullable(),
    blockNumber: z.number().int(),
    createdAt: z.string(),
}).meta({ id: 'DeployedToken' })
const TokenInfo = z.looseObject({
    address: checksummedAddress,
    name: z.string(),
    symbol: z.string(),
    decimals: z.number().int(),
    totalSupply: baseUnits,
    supply: wholeTokens,
    deployedByPlatform: z.boolean(),
    platform: DeployedRecord.nullable(),
})
const TokenList = z.looseObject({ tokens: z.array(DeployedRecord), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })

const INFO_ANSWERS = {
    200: { description: 'The token as the chain reports it, with its deployment record when deployed here', schema: inData(TokenInfo) },
    400: 'Invalid input, or no ERC-20 token at the address',
    ...PASSWORD_ANSWERS,
    ...TOKEN_ANSWERS,
    ...CHAIN_ANSWERS,
}

/**
 * /api/token: deploying PlatformTokens from a user's wallet and reading any ERC-20. totalSupply
 * is in whole tokens (scaled by decimals); the supply is minted to the deploying wallet and then
 * transferred to destinationAddress (transferHash).
 */
export function tokenRoutes(s: PlatformServices, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api/token', 'Tokens')

    router.post('/deploy', withIdempotencyKey({
        operationId: 'deployToken',
        summary: "Deploy a PlatformToken from one of the user's wallets, its supply sent to destinationAddress",
        description: "Signs with the wallet named in address (it must be the user's), else the user's oldest wallet. totalSupply is in whole tokens.",
        body: DeployInput,
        security: PASSWORD,
        responses: {
            201: { description: 'Deployed, and the supply moved to destinationAddress', schema: inData(Deployed) },
            400: 'Invalid input, the user has no wallet, or the chain rejects the deployment',
            ...PASSWORD_ANSWERS,
            ...SEND_ANSWERS,
            // The supply stays in the deploying wallet when the transfer after the deployment fails; the message says where.
            502: 'The chain node refused the request, or the token was deployed and moving its supply failed',
        },
    }), s.idempotency.middleware(), async (req, res) => {
        const input = parseInput(DeployInput, req.body)
        const buyingFee = input.buyingFee ?? 0
        const sellingFee = input.sellingFee ?? 0
        if ((buyingFee > 0 || sellingFee > 0) && !input.feeAddress) {
            throw badRequest('feeAddress is required when buyingFee or sellingFee is not 0')
        }
        const decimals = input.decimals ?? 18
        const supply = parsePositiveAmount(input.totalSupply, decimals, 'totalSupply')
        const auth = await s.auth.userWallet(req, input.user_id, input.address)
        const { factory } = await s.chain.ready()
        const account = s.auth.account(auth)
        const { abi, bytecode } = loadArtifact('PlatformToken')
        const params = {
            name: input.tokenName,
            symbol: input.tokenSymbol,
            description: input.tokenDescription ?? '',
            decimals,
            totalSupply: supply,
            buyingFee,
            sellingFee,
            feeAddress: input.feeAddress,
            mintable: input.mintable ?? false,
            ammFactory: factory,
        }
        const deployed = await s.sender.execute(account, [{ data: encodeDeployData({ abi, bytecode, args: platformTokenConstructorArgs(params) }) }])
        const contractAddress = getAddress(deployed.receipt.contractAddress!)
        const record: Omit<DeployedToken, 'createdAt'> = {
            address: contractAddress,
            userId: auth.userId,
            deployer: account.address,
            name: params.name,
            symbol: params.symbol,
            description: params.description,
            decimals,
            totalSupply: supply,
            buyingFee,
            sellingFee,
            feeAddress: input.feeAddress ?? null,
            mintable: params.mintable,
            destination: input.destinationAddress,
            transactionHash: deployed.receipt.transactionHash,
            transferHash: null,
            blockNumber: Number(deployed.receipt.blockNumber),
        }
        try {
            const moved = await s.sender.execute(account, [{
                to: contractAddress,
                data: encodeFunctionData({ abi: platformTokenAbi, functionName: 'transfer', args: [input.destinationAddress, supply] }),
            }])
            record.transferHash = moved.receipt.transactionHash
        } catch (err) {
            await insertDeployedToken(s.pool, record)
            const reason = err instanceof HttpError ? err.message : 'the transfer could not be sent'
            throw new HttpError(err instanceof HttpError ? err.status : 502, `The token was deployed at ${contractAddress} (transaction ${record.transactionHash}), but moving the supply to destinationAddress failed: ${reason}. The supply is in the deploying wallet ${account.address}`)
        }
        await insertDeployedToken(s.pool, record)
        res.status(201).json({
            success: true,
            data: {
                contractAddress,
                transactionHash: record.transactionHash,
                transferHash: record.transferHash,
                deployer: account.address,
                name: record.name,
                symbol: record.symbol,
                decimals,
                totalSupply: supply.toString(),
                supply: formatAmount(supply, decimals),
            },
        })
    })

    const info = async (req: Request, res: Response, token: unknown, user: unknown) => {
        const input = parseInput(TokenInfoInput, { address: token, user_id: user })
        await s.auth.user(req, input.user_id)
        sendData(res, await tokenInfo(s, input.address))
    }
    router.get('/info/:address', {
        operationId: 'getTokenInfo',
        summary: 'Any ERC-20 token',
        params: TokenInfoInput.pick({ address: true }),
        query: TokenInfoInput.omit({ address: true }),
        security: PASSWORD,
        responses: INFO_ANSWERS,
    }, (req, res) => info(req, res, req.params.address, req.query.user_id))
    // Clients may name the token address, or contractAddress as deploy returns it.
    router.post('/info_by_address', {
        operationId: 'getTokenInfoByAddress',
        summary: 'Any ERC-20 token (the address in the body)',
        description: 'The token is address, or contractAddress as deploy returns it.',
        body: TokenInfoInput.extend({ address: address.optional(), contractAddress: address.optional() }),
        security: PASSWORD,
        responses: INFO_ANSWERS,
    }, (req, res) => info(req, res, req.body?.address ?? req.body?.contractAddress, req.body?.user_id))

    const list = async (req: Request, res: Response) => {
        const input = parseInput(ListInput, req.query)
        await s.auth.user(req, input.user_id)
        const { tokens, total } = await listDeployedTokens(s.pool, input.limit, input.offset)
        sendData(res, { tokens: tokens.map(deployedView), total, limit: input.limit, offset: input.offset })
    }
    const listing = (operationId: string, summary: string) => ({
        operationId,
        summary,
        query: ListInput,
        security: PASSWORD,
        responses: { 200: { description: 'Newest first', schema: inData(TokenList) }, 400: 'Invalid input', ...PASSWORD_ANSWERS },
    })
    router.get('/list', listing('listDeployedTokens', 'Tokens deployed through the platform'), list)
    router.get('/tokens', listing('listPlatformTokens', 'Tokens deployed through the platform (the same as list)'), list)

    return router
}

/** Any ERC-20, read from the chain; tokens deployed here carry their deployment record too. */
async function tokenInfo(s: PlatformServices, token: Address) {
    await s.chain.ready()
    // The metadata read says what the address is (no contract, not an ERC-20: a 400); read first, so
    // that a totalSupply() failing on such an address cannot answer before it (as a 502).
    const meta = await s.chain.tokenMeta(token)
    const [totalSupply, deployed] = await Promise.all([
        s.chain.read(() => s.chain.client.readContract({ address: token, abi: platformTokenAbi, functionName: 'totalSupply' })),
        findDeployedToken(s.pool, token),
    ])
    return {
        address: meta.address,
        name: meta.name,
        symbol: meta.symbol,
        decimals: meta.decimals,
        totalSupply: totalSupply.toString(),
        supply: formatAmount(totalSupply, meta.decimals),
        deployedByPlatform: deployed !== undefined,
        platform: deployed ? deployedView(deployed) : null,
    }
}

function deployedView(t: DeployedToken) {
    return {
        contractAddress: t.address,
        name: t.name,
        symbol: t.symbol,
        description: t.description,
        decimals: t.decimals,
        totalSupply: t.totalSupply.toString(),
        supply: formatAmount(t.totalSupply, t.decimals),
        buyingFee: t.buyingFee,
        sellingFee: t.sellingFee,
        feeAddress: t.feeAddress,
        mintable: t.mintable,
        deployer: t.deployer,
        destinationAddress: t.destination,
        transactionHash: t.transactionHash,
        transferHash: t.transferHash,
        blockNumber: t.blockNumber,
        createdAt: t.createdAt.toISOString(),
    }
}
