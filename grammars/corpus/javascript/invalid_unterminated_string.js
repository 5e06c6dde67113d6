const s = 'never closed;
const t = 2;
