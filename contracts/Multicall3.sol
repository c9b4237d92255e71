// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Multicall3 (subset)
/// @notice The `tryAggregate` entry point of the canonical Multicall3, which the x402 EVM facilitator calls
///         at 0xcA11bde05977b3631167028862bE2a173976CA11 to explain a failed simulation (balance, nonce used,
///         token name/version). A fresh anvil chain has nothing at that address; the local rails place this
///         runtime code there so those diagnoses work offline.
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) public payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(success, "Multicall3: call failed");
            returnData[i] = Result(success, ret);
        }
    }
}
