import { ErrorRequestHandler, Request, Response } from 'express'
import { clientKey } from '../../../common/service/client-ip'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { ChainContext, setLiveCaching } from '../context'
import { ReplicaConflict, StatementTimeout } from '../db'
import { account, accountQueries } from './account'
import { block, blockQueries } from './block'
import { contract, contractQueries } from './contract'
import { createEtherscanContext } from './context'
import { EtherscanError, EtherscanFailure, EtherscanSuccess, fail, ok } from './envelope'
import { logs, logsQueries } from './logs'
import { Module, ModuleQueries } from './module'
import { stats, statsQueries } from './stats'
import { transaction, transactionQueries } from './transaction'
import { VerifySourceCodeForm } from './verification'

const MODULES: Record<string, Module> = { account, block, contract, logs, stats, transaction }
const QUERIES: ModuleQueries[] = [accountQueries, blockQueries, contractQueries, logsQueries, statsQueries, transactionQueries]

/**
 * Every parameter some action reads, each optional since which are required depends on the
 * action. A name two actions parse differently (`address`: one address, or a comma list) is
 * documented as a plain string; the action's own schema still checks it.
 */
function actionParameters(queries: readonly ModuleQueries[]): Record<string, z.ZodType> {
    const seen = new Map<string, z.ZodType>()
    const shared = new Set<string>()
    for (const schema of queries.flat()) {
        for (const [name, param] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
            const unwrapped = param instanceof z.ZodOptional ? (param.unwrap() as z.ZodType) : param
            if (seen.has(name) && seen.get(name) !== unwrapped) shared.add(name)
            seen.set(name, unwrapped)
        }
    }
    return Object.fromEntries([...seen].map(([name, param]) => [
        name,
        shared.has(name) ? z.string().optional().meta({ description: 'Its form depends on the action (docs/etherscan-api.md)' }) : param.optional(),
    ]))
}

const names = (modules: Module[]) => [...new Set(modules.flatMap((m) => Object.keys(m)))] as [string, ...string[]]

/** The query of GET /api: module and action (any case), and the parameters of the actions. */
export const EtherscanQuery = z.object({
    module: z.enum(Object.keys(MODULES) as [string, ...string[]]).meta({ description: 'Case-insensitive' }),
    action: z.enum(names(Object.values(MODULES))).meta({ description: 'One of the module\'s actions; case-insensitive' }),
    ...actionParameters(QUERIES),
})

/** POST /api: the form of verifysourcecode (docs/contract-verification.md); any other action may be posted too. */
export const etherscanPostOperation: Operation = {
    operationId: 'submitEtherscanVerification',
    summary: 'Etherscan-style RPC API by form POST: verifysourcecode',
    description: 'module=contract&action=verifysourcecode in the query or the form. Answers the verification\'s guid; '
        + 'poll GET /api?module=contract&action=checkverifystatus&guid=... for the outcome.',
    body: VerifySourceCodeForm.extend({ module: z.string().optional(), action: z.string().optional(), apikey: z.string().optional() }),
    bodyType: 'application/x-www-form-urlencoded',
    responses: {
        200: { description: 'The envelope: the guid, or the reason the submission is refused', schema: z.union([EtherscanSuccess, EtherscanFailure]) },
        400: 'No module or action, or an unknown one',
        413: 'The form is larger than VERIFIER_MAX_INPUT_KB',
        429: 'This client already has VERIFIER_PER_IP verifications waiting or compiling',
        503: 'The verification queue is full (VERIFIER_QUEUE_LIMIT)',
    },
}

export const etherscanOperation: Operation = {
    operationId: 'callEtherscanApi',
    summary: 'Etherscan-style RPC API: module and action select what is answered',
    description: 'Every outcome past routing is HTTP 200 and the envelope carries it: `status` "1" with the result, or "0" '
        + 'with the reason (Blockscout\'s texts). Actions, parameters and results: docs/etherscan-api.md.',
    query: EtherscanQuery,
    responses: {
        200: { description: 'The envelope: a success, or a failure with its reason', schema: z.union([EtherscanSuccess, EtherscanFailure]) },
        400: 'No module or action, or an unknown one',
        503: 'A query ran past ETHERSCAN_API_STATEMENT_TIMEOUT_MS and was cancelled ("Query Timeout occured. ...")',
    },
}

/**
 * The Etherscan-style RPC API Blockscout serves at `GET /api?module=...&action=...` for wallets,
 * scripts and dashboards written against Etherscan. Routing answers as Blockscout's
 * RPCTranslator: 400 without module or action or for an unknown one; everything past routing
 * answers HTTP 200 with the status in the envelope.
 */
export function etherscanApi(chain: ChainContext) {
    const ctx = createEtherscanContext(chain)
    const handler = async (req: Request, res: Response): Promise<void> => {
        setLiveCaching(res)
        // A form POST (verifysourcecode) carries its parameters in the body, module and action in either.
        const params = { ...(req.body && typeof req.body === 'object' ? req.body : {}), ...req.query } as Record<string, unknown>
        const { module: moduleName, action: actionName } = params
        try {
            if (typeof moduleName !== 'string' || typeof actionName !== 'string') {
                throw new EtherscanError("Params 'module' and 'action' are required parameters", null, 400)
            }
            const module = Object.hasOwn(MODULES, moduleName.toLowerCase()) ? MODULES[moduleName.toLowerCase()] : undefined
            if (!module) throw new EtherscanError('Unknown module', null, 400)
            const action = Object.hasOwn(module, actionName.toLowerCase()) ? module[actionName.toLowerCase()] : undefined
            if (!action) throw new EtherscanError('Unknown action', null, 400)
            ok(res, await action(ctx, params, { key: clientKey(req) }))
        } catch (err) {
            if (err instanceof EtherscanError) return fail(res, err)
            // Blockscout's words for a cancelled statement, with 503 so that clients and proxies know to back off.
            if (err instanceof StatementTimeout) {
                return fail(res, new EtherscanError('Query Timeout occured. Please select a smaller result dataset', null, 503))
            }
            if (err instanceof ReplicaConflict) return fail(res, new EtherscanError(err.message, null, 503))
            ctx.log.error({ err, module: moduleName, action: actionName }, 'Etherscan-style API request failed')
            fail(res, new EtherscanError('Something went wrong.', null, 500))
        }
    }
    return { handler, close: ctx.close }
}

/** A form the body parser refused (too large, malformed) answers in the envelope, with its 4xx. */
export const etherscanBodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
    const status = (err as { status?: unknown })?.status
    if (typeof status !== 'number' || status < 400 || status >= 500) return next(err)
    fail(res, new EtherscanError(status === 413 ? 'The request is larger than VERIFIER_MAX_INPUT_KB' : 'Unreadable request body', null, status))
}
