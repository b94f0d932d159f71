// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./MinimalToken.sol";

/// @dev Test token with a name and a symbol but no decimals(): ERC-20 makes decimals optional.
contract NoDecimalsToken is MinimalToken {
    string public constant name = "No Decimals";
    string public constant symbol = "NODEC";
}
