import { z } from 'zod'

/**
 * SimpleSwap v3 response shapes (camelCase, wrapped in { result }). Only
 * the fields we use are required; the rest is stripped. Amounts are left as the provider sent
 * them and converted by decimal.ts, so a float can never sneak in through a schema coercion.
 */

const amount = z.union([z.string(), z.number()])
const optionalText = z.string().nullable().optional()
const optionalAmount = amount.nullable().optional()

export const RangesResponse = z.object({
    result: z.object({ min: amount, max: optionalAmount }),
})

export const EstimateResponse = z.object({
    result: z.object({
        estimatedAmount: amount,
        rateId: optionalText,
        validUntil: optionalText,
    }),
})

export const ExchangeObject = z.object({
    // Some public clients read publicId, others id. Either identifies the exchange.
    id: z.union([z.string(), z.number()]).optional(),
    publicId: optionalText,
    status: z.string(),
    type: optionalText,
    fixed: z.boolean().nullable().optional(),
    tickerFrom: z.string(),
    networkFrom: z.string(),
    tickerTo: z.string(),
    networkTo: z.string(),
    addressFrom: z.string().min(1),
    extraIdFrom: optionalText,
    addressTo: z.string().min(1),
    extraIdTo: optionalText,
    userRefundAddress: optionalText,
    userRefundExtraId: optionalText,
    amountFrom: optionalAmount,
    expectedAmount: optionalAmount,
    amountTo: optionalAmount,
    txFrom: optionalText,
    txTo: optionalText,
    validUntil: optionalText,
    createdAt: optionalText,
}).refine((e) => e.id !== undefined || !!e.publicId, { message: 'exchange has neither id nor publicId' })

export const ExchangeResponse = z.object({ result: ExchangeObject })

export type ExchangeObject = z.infer<typeof ExchangeObject>

/** Error bodies vary between APIs and versions; these are the fields that carry a message. */
export const ErrorBody = z.object({
    error: z.unknown().optional(),
    message: z.unknown().optional(),
    description: z.unknown().optional(),
}).partial()
