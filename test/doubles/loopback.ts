/** The loopback HTTP helpers moved to devnet/loopback.ts; the TRON and Solana networks still import them from here. */
export * from '../../devnet/loopback'
