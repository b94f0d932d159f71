// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev Implementation behind the test proxies. Slot 0 is left to a Safe-like proxy's masterCopy.
contract ProxyLogicV1 {
    address private reservedForMasterCopy;
    uint256 public stored;

    function store(uint256 value) external {
        stored = value;
    }

    function version() external pure returns (uint256) {
        return 1;
    }
}

/// @dev The upgrade of ProxyLogicV1: the same layout and selectors, other parameter names.
contract ProxyLogicV2 {
    address private reservedForMasterCopy;
    uint256 public stored;

    function store(uint256 newValue) external {
        stored = newValue * 2;
    }

    function version() external pure returns (uint256) {
        return 2;
    }
}
