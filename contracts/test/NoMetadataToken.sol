// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./MinimalToken.sol";

/// @dev Test token without name(), symbol() or decimals(): ERC-20 makes all three optional.
contract NoMetadataToken is MinimalToken {}
