FROM alpine
WORKDIR /app
COPY
