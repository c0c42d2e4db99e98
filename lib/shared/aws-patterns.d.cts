// Types of aws-patterns.cjs (see there).
/** The patterns' sources, valid both as JavaScript and as RE2 (CEL's matches()). */
export declare const REGION_PATTERN: string;
export declare const ROLE_ARN_PATTERN: string;
export declare const CLUSTER_NAME_PATTERN: string;
export declare const REGION: RegExp;
export declare const ROLE_ARN: RegExp;
export declare const CLUSTER_NAME: RegExp;
export declare function isAwsRegion(s: string): boolean;
export declare function isRoleArn(s: string): boolean;
export declare function isClusterName(s: string): boolean;
