FROM node:20-alpine
WORKDIR /srv
COPY package*.json ./
RUN npm ci --omit=dev
COPY src ./src
VOLUME ["/srv/data"]
ENV NODE_ENV=production
CMD ["node", "src/index.js"]
