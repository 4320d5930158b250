import { baseTestConfig } from '../../vitest.shared.ts';

export default baseTestConfig;
