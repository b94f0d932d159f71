import { Request, Response } from 'express'
import { ChainContext, setLiveCaching } from '../context'
import { StatementTimeout } from '../db'
import { account } from './account'
import { block } from './block'
import { contract } from './contract'
import { createEtherscanContext } from './context'
import { EtherscanError, fail, ok } from './envelope'
import { logs } from './logs'
import { Module } from './module'
import { stats } from './stats'
import { transaction } from './transaction'

const MODULES: Record<string, Module> = { account, block, contract, logs, stats, transaction }

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
        const { module: moduleName, action: actionName } = req.query
        try {
            if (typeof moduleName !== 'string' || typeof actionName !== 'string') {
                throw new EtherscanError("Params 'module' and 'action' are required parameters", null, 400)
            }
            const module = Object.hasOwn(MODULES, moduleName.toLowerCase()) ? MODULES[moduleName.toLowerCase()] : undefined
            if (!module) throw new EtherscanError('Unknown module', null, 400)
            const action = Object.hasOwn(module, actionName.toLowerCase()) ? module[actionName.toLowerCase()] : undefined
            if (!action) throw new EtherscanError('Unknown action', null, 400)
            ok(res, await action(ctx, req.query as Record<string, unknown>))
        } catch (err) {
            if (err instanceof EtherscanError) return fail(res, err)
            // Blockscout's words for a cancelled statement, with 503 so that clients and proxies know to back off.
            if (err instanceof StatementTimeout) {
                return fail(res, new EtherscanError('Query Timeout occured. Please select a smaller result dataset', null, 503))
            }
            ctx.log.error({ err, module: moduleName, action: actionName }, 'Etherscan-style API request failed')
            fail(res, new EtherscanError('Something went wrong.', null, 500))
        }
    }
    return { handler, close: ctx.close }
}
