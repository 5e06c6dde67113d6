export default [
  {
    files: ["**/*.js"],
    rules: { "no-unused-vars": "error", "prefer-const": "error" },
  },
];
