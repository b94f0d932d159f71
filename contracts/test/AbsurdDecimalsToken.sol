// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./MinimalToken.sol";

/// @dev Test token with the largest decimals a uint8 holds: one base unit is 10^-255 of a token.
contract AbsurdDecimalsToken is MinimalToken {
    string public constant name = "Absurd Decimals";
    string public constant symbol = "ABSD";
    uint8 public constant decimals = 255;
}
