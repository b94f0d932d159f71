import { z } from 'zod'
import { Refusal, VerificationRefused } from '../verification/service'
import { ConstructorArgs, flattenedInput, StandardInput, Submission } from '../verification/submission'
import { EtherscanContext } from './context'
import { EtherscanError, parseParams } from './envelope'
import { Action } from './module'
import { addressParam, required, text } from './params'

/**
 * Etherscan's source verification as its clients speak it (hardhat-verify, forge's etherscan and
 * blockscout verifiers): `verifysourcecode` (a form POST) answers a guid at once, and
 * `checkverifystatus` is polled with it (docs/contract-verification.md).
 */

/** The form of verifysourcecode. Etherscan spells the arguments `constructorArguements`; the right spelling is taken too. */
export const VerifySourceCodeForm = z.object({
    contractaddress: addressParam(required('contractaddress'), 'Invalid contractaddress format'),
    sourceCode: text(required('sourceCode'), 'Invalid sourceCode').min(1, required('sourceCode')),
    codeformat: z.enum(['solidity-standard-json-input', 'solidity-single-file'], { error: 'codeformat must be solidity-standard-json-input or solidity-single-file' })
        .default('solidity-single-file'),
    contractname: text(required('contractname'), 'Invalid contractname').min(1, required('contractname')).max(1_100),
    compilerversion: text(required('compilerversion'), 'Invalid compilerversion').min(1, required('compilerversion')).max(100),
    optimizationUsed: z.enum(['0', '1'], { error: 'optimizationUsed must be 0 or 1' }).optional(),
    runs: z.string().regex(/^\d{1,10}$/, 'Invalid runs').transform(Number).optional(),
    evmversion: z.string().regex(/^[A-Za-z]{1,30}$/, 'Invalid evmversion').optional(),
    constructorArguements: ConstructorArgs.optional(),
    constructorArguments: ConstructorArgs.optional(),
    licenseType: z.string().max(30).optional(),
})

export const CheckVerifyStatusQuery = z.object({
    guid: text(required('guid'), 'Invalid guid').max(100),
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function submission(form: z.infer<typeof VerifySourceCodeForm>): Submission {
    const args = form.constructorArguements ?? form.constructorArguments
    const base = { address: form.contractaddress, compilerVersion: form.compilerversion, constructorArgs: args || undefined }
    if (form.codeformat === 'solidity-standard-json-input') {
        let json: unknown
        try {
            json = JSON.parse(form.sourceCode)
        } catch {
            throw new EtherscanError('sourceCode is not JSON: a standard JSON input is expected with codeformat solidity-standard-json-input')
        }
        const parsed = StandardInput.safeParse(json)
        if (!parsed.success) throw new EtherscanError(`sourceCode is not a standard JSON input: ${parsed.error.issues[0]?.message}`)
        return { ...base, input: parsed.data, contractName: form.contractname }
    }
    const name = form.contractname.slice(form.contractname.lastIndexOf(':') + 1)
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) throw new EtherscanError('Invalid contractname')
    return {
        ...base,
        input: flattenedInput({ source: form.sourceCode, contractName: name, optimize: form.optimizationUsed === '1', runs: form.runs, evmVersion: form.evmversion }),
        contractName: name,
    }
}

/** A refusal as Etherscan words it: message NOTOK, the reason in `result`, where its clients read it. */
const refused = (reason: string, httpStatus = 200) => new EtherscanError('NOTOK', reason, httpStatus)

/** The limits answer with their HTTP status too, so that clients and proxies back off; other refusals are 200. */
const LIMIT_STATUS: Partial<Record<Refusal, number>> = { busy_client: 429, queue_full: 503 }

const verifysourcecode: Action = async (ctx: EtherscanContext, params, client) => {
    try {
        const form = parseParams(VerifySourceCodeForm, params)
        return await ctx.verification.submit(submission(form), client.key)
    } catch (err) {
        if (err instanceof EtherscanError) throw refused(err.message)
        if (err instanceof VerificationRefused) throw refused(err.message, LIMIT_STATUS[err.refusal])
        throw err
    }
}

/** Etherscan's texts: "Pending in queue", "Pass - Verified", or a failure "Fail - Unable to verify. <reason>" with status "0". */
const checkverifystatus: Action = async (ctx: EtherscanContext, params) => {
    const { guid } = parseParams(CheckVerifyStatusQuery, params)
    const job = UUID.test(guid) ? await ctx.verification.job(guid) : undefined
    if (!job) throw new EtherscanError('NOTOK', 'Unknown UID')
    if (job.status === 'pass') return 'Pass - Verified'
    if (job.status === 'fail') throw new EtherscanError('NOTOK', `Fail - Unable to verify. ${job.reason}`)
    if (job.interrupted) throw new EtherscanError('NOTOK', 'Fail - Unable to verify. The verification was interrupted (the server restarted); submit it again')
    return 'Pending in queue'
}

export const verificationActions = { verifysourcecode, checkverifystatus }
